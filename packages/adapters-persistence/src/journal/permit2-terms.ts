import * as t from 'io-ts'
import { CanonicalAddress, HexBytes, UintFromString, type Permit2Transfer } from '@x402-facilitator/domain'
import { canonical } from './journal-sql.js'

/**
 * A Permit2 row's terms as the `permit2` column keeps them (migration 0008): JSON, amounts as decimal text (a JSON
 * number loses digits of a uint256), addresses and the permit's signature lower-case.
 */
const SponsoredPermitJson = t.type({
  value: UintFromString,
  nonce: UintFromString,
  deadline: UintFromString,
  signature: HexBytes,
})

export const Permit2Json = t.intersection([
  t.type({ scheme: t.keyof({ exact: null, upto: null }), permitted: UintFromString, spender: CanonicalAddress }),
  t.partial({ facilitator: CanonicalAddress, sponsored_permit: SponsoredPermitJson }),
])

export const permit2Json = (terms: Permit2Transfer | undefined): string | null => {
  if (terms === undefined) return null
  const permit = terms.sponsoredPermit
  return JSON.stringify({
    scheme: terms.scheme,
    permitted: terms.permitted.toString(),
    spender: canonical(terms.spender),
    ...(terms.facilitator === undefined ? {} : { facilitator: canonical(terms.facilitator) }),
    ...(permit === undefined
      ? {}
      : {
          sponsored_permit: {
            value: permit.value.toString(),
            nonce: permit.nonce.toString(),
            deadline: permit.deadline.toString(),
            signature: canonical(permit.signature),
          },
        }),
  })
}

export const permit2Terms = (json: t.TypeOf<typeof Permit2Json>): Permit2Transfer => ({
  scheme: json.scheme,
  permitted: json.permitted,
  spender: json.spender,
  ...(json.facilitator === undefined ? {} : { facilitator: json.facilitator }),
  ...(json.sponsored_permit === undefined ? {} : { sponsoredPermit: json.sponsored_permit }),
})
