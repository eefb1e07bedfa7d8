import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import {
  decodeSvmBody,
  hasPermit2Authorization,
  isSvmBody,
  makeFieldCodecs,
  makePermit2Codecs,
  readPaymentIdentifier,
  toMalformedRequest,
  X402Version,
  type AddressChecksum,
  type FamilyRequest,
  type MalformedRequest,
  type ServedNetwork,
} from '@x402-facilitator/domain'
import type { RequestDecoder } from './dialect.js'

/**
 * The x402 v2 body: `{ x402Version, paymentPayload: { x402Version, accepted, payload, extensions? },
 * paymentRequirements }`. Its payload is an EIP-3009 authorization, or a Permit2 one (`exact` with
 * `assetTransferMethod: "permit2"`, and `upto`) when it holds `permit2Authorization`, as @x402/evm tells them apart; on a
 * `solana:` network, a transaction (scheme_exact_svm.md).
 */
export const makeX402V2Decoder = (
  checksum: AddressChecksum,
  networks: ReadonlyArray<ServedNetwork>,
): RequestDecoder => {
  const { ExactEvmPayload, Requirements } = makeFieldCodecs(checksum)
  const { Permit2Payload, Extensions } = makePermit2Codecs(checksum)
  const Eip3009Body = t.type(
    {
      x402Version: X402Version,
      paymentPayload: t.type(
        { x402Version: X402Version, accepted: Requirements, payload: ExactEvmPayload },
        'a payment payload object',
      ),
      paymentRequirements: Requirements,
    },
    'a JSON object',
  )
  // Only a Permit2 payment reads `extensions`: an EIP-3009 one ignores them, as it always did.
  const Permit2Body = t.type(
    {
      x402Version: X402Version,
      paymentPayload: t.intersection(
        [
          t.type({ x402Version: X402Version, accepted: Requirements, payload: Permit2Payload }),
          t.partial({ extensions: Extensions }),
        ],
        'a payment payload object',
      ),
      paymentRequirements: Requirements,
    },
    'a JSON object',
  )
  // Rules speak the spec dialect's network string; v2 names the same network by CAIP-2. One not served passes
  // unchanged: rule 2b refuses it.
  const names = new Map(networks.map((network) => [network.caip2, network.name]))
  const ours = (n: string) => names.get(n) ?? n
  type Requirements = t.TypeOf<typeof Requirements>
  const common = (x402Version: number, p: { x402Version: number; accepted: Requirements }, r: Requirements) => ({
    payload: { x402Version: p.x402Version, scheme: p.accepted.scheme, network: ours(p.accepted.network) },
    requirements: { ...r, network: ours(r.network), x402Version },
  })
  // Either kind of payment may carry `payment-identifier`: its id rides beside the request (docs/ARCHITECTURE.md §5.2).
  // No callback of this file after the codecs: a request's walk leaves it once (§9).
  return (input) => {
    const extensions = extensionsOf(input)
    const request = decodePayment(input)
    if (E.isLeft(request)) return request
    const paymentId = readPaymentIdentifier(extensions)
    if (E.isLeft(paymentId)) return paymentId
    return E.right(
      paymentId.right === undefined
        ? { request: request.right }
        : { request: request.right, paymentId: paymentId.right },
    )
  }
  function decodePayment(input: unknown): E.Either<MalformedRequest, FamilyRequest> {
    if (isSvmBody(input)) return decodeSvmBody(input, ours)
    return isPermit2Body(input)
      ? pipe(
          Permit2Body.decode(input),
          E.bimap(toMalformedRequest, ({ x402Version, paymentPayload: p, paymentRequirements: r }) => {
            const { payload, requirements } = common(x402Version, p, r)
            const sponsored = p.extensions?.eip2612GasSponsoring?.info
            return {
              payload: {
                ...payload,
                signature: p.payload.signature,
                permit2Authorization: p.payload.permit2Authorization,
                ...(sponsored === undefined ? {} : { sponsoredPermit: sponsored }),
              },
              requirements,
            }
          }),
        )
      : pipe(
          Eip3009Body.decode(input),
          E.bimap(toMalformedRequest, ({ x402Version, paymentPayload: p, paymentRequirements: r }) => {
            const { payload, requirements } = common(x402Version, p, r)
            return {
              payload: { ...payload, signature: p.payload.signature, authorization: p.payload.authorization },
              requirements,
            }
          }),
        )
  }
}

/** The payload's `extensions` as received (an EIP-3009 payload's codec does not read them). */
const extensionsOf = (input: unknown): unknown =>
  isObject(input) && isObject(input.paymentPayload) ? input.paymentPayload.extensions : undefined

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

const isPermit2Body = (input: unknown): boolean =>
  typeof input === 'object' &&
  input !== null &&
  'paymentPayload' in input &&
  typeof input.paymentPayload === 'object' &&
  input.paymentPayload !== null &&
  'payload' in input.paymentPayload &&
  hasPermit2Authorization(input.paymentPayload.payload)
