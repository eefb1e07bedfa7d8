import { isPermit2Request, isSvmRequest, type FamilyRequest } from '@x402-facilitator/domain'
import { declarationOfV2 } from '../discovery/declared-resource.js'
import type { HttpDeps } from '../http-deps.js'
import { firstNetwork } from '../served-networks.js'
import { makeDialect, type Dialect, type Wording } from './dialect.js'
import { x402SharedWording } from './x402-shared-wording.js'
import { makeX402V2Decoder } from './x402-v2-decoder.js'

/** The key of our signed receipt under a v2 settle answer's `extensions`. */
export const RECEIPT_EXTENSION = 'facilitator-receipt'

/**
 * `amount`: what a Permit2 settle moves (`upto`: what it charged; scheme_upto_evm.md makes it required), said on its
 * success.
 */
const wordingOn = (network: string, amount?: bigint): Wording => ({
  ...x402SharedWording(network),
  // `replayed` at the top for clients reading the JSON; also under `extra`, the one object @x402/core's parser keeps.
  settled: ({ payer, txHash, blockNumber, replayed, confirmations }, receipt) => ({
    success: true,
    payer,
    transaction: txHash,
    network,
    ...(amount === undefined ? {} : { amount: amount.toString() }),
    ...(replayed ? { replayed: true } : {}),
    extra: {
      blockNumber: Number(blockNumber),
      ...(confirmations === undefined ? {} : { confirmations }),
      ...(replayed ? { replayed: true } : {}),
    },
    // @x402/core's parser drops unknown top-level keys; `extensions` it keeps (`offer-receipt` is the resource server's).
    ...(receipt === undefined ? {} : { extensions: { [RECEIPT_EXTENSION]: receipt } }),
  }),
  waived: ({ payer, replayed }) => ({
    success: true,
    payer,
    transaction: '',
    network,
    amount: '0',
    ...(replayed ? { replayed: true, extra: { replayed: true } } : {}),
  }),
})

/**
 * x402 v2 (coinbase/x402 `specs/x402-specification-v2.md`): `isValid`/`invalidReason`/`invalidMessage` and
 * `success`/`errorReason`/`errorMessage`/`transaction`/`network`. Its client throws on any non-2xx answer, so
 * rule failures stay 200.
 */
export const x402V2Dialect = ({
  addressChecksum,
  networks,
}: Pick<HttpDeps, 'addressChecksum' | 'networks'>): Dialect => {
  // An answer names the request's network when it is served, else the first one (as a one-network facilitator does).
  const byName = new Map(networks.map((network) => [network.name, wordingOn(network.caip2)]))
  const first = wordingOn(firstNetwork(networks).caip2)
  const wordingFor = (request: FamilyRequest): Wording => {
    const wording = byName.get(request.requirements.network) ?? first
    if (isSvmRequest(request) || !isPermit2Request(request)) return wording
    const caip2 = networks.find((n) => n.name === request.requirements.network)?.caip2 ?? firstNetwork(networks).caip2
    return wordingOn(caip2, request.requirements.amount)
  }
  return makeDialect(makeX402V2Decoder(addressChecksum, networks), first, wordingFor, declarationOfV2)
}
