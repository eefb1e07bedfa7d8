import type { FamilyRequest } from '@x402-facilitator/domain'
import { declarationOfV1 } from '../discovery/declared-resource.js'
import type { HttpDeps } from '../http-deps.js'
import { makeDialect, type Dialect, type Wording } from './dialect.js'
import { x402SharedWording } from './x402-shared-wording.js'
import { makeX402V1Decoder } from './x402-v1-decoder.js'
import { v1NetworksOf } from './x402-v1-networks.js'

/**
 * x402 v1's answers (`x402` 1.x `VerifyResponse`, `SettleResponse`): `isValid`/`invalidReason`/`payer` and
 * `success`/`errorReason`/`transaction`/`network`/`payer`, `network` in v1's name. Beside them, as in the other
 * dialects: the message, `replayed`, an earlier settlement's state and our signed receipt.
 */
const wordingOn = (network: string): Wording => ({
  ...x402SharedWording(network),
  settled: ({ payer, txHash, replayed }, receipt) => ({
    success: true,
    payer,
    transaction: txHash,
    network,
    ...(replayed ? { replayed: true } : {}),
    ...(receipt === undefined ? {} : { receipt }),
  }),
  // v1 has no `upto`: a waived settle cannot be decoded from a v1 body.
  waived: ({ payer, replayed }) => ({
    success: true,
    payer,
    transaction: '',
    network,
    ...(replayed ? { replayed } : {}),
  }),
})

/**
 * x402 v1 (coinbase/x402 `specs/x402-specification-v1.md`), as the legacy `x402` 1.x packages speak it. Its client
 * throws on any non-2xx answer, so rule failures stay 200, as in v2.
 */
export const x402V1Dialect = ({
  addressChecksum,
  networks,
}: Pick<HttpDeps, 'addressChecksum' | 'networks'>): Dialect => {
  const v1 = v1NetworksOf(networks)
  // A body that did not decode is answered on the first network v1 can name ('' when none can).
  const first = wordingOn(v1.served[0] ?? '')
  const byServedName = new Map(v1.served.map((v1Name) => [v1.servedName(v1Name)!, wordingOn(v1Name)]))
  const wordingFor = (request: FamilyRequest): Wording => byServedName.get(request.requirements.network) ?? first
  return makeDialect(makeX402V1Decoder(addressChecksum, v1), first, wordingFor, declarationOfV1)
}
