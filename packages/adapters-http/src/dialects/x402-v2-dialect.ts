import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import {
  explainRefusal,
  makeFieldCodecs,
  toMalformedRequest,
  X402Version,
  type AddressChecksum,
  type FacilitatorPolicy,
  type PaymentRequest,
} from '@x402-facilitator/domain'
import { idempotencyConflictMessage, PENDING_MESSAGE, unavailable, type Dialect } from './dialect.js'

/** The official x402 v2 request: requirements also ride in the payload, under `accepted`. */
export const isX402V2Body = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null) return false
  const payload = (body as { paymentPayload?: unknown }).paymentPayload
  return typeof payload === 'object' && payload !== null && 'accepted' in payload
}

const makeDecoder = (checksum: AddressChecksum, caip2: string, network: string) => {
  const { ExactEvmPayload, Requirements } = makeFieldCodecs(checksum)
  const Body = t.type(
    {
      x402Version: X402Version,
      paymentPayload: t.type({ x402Version: X402Version, accepted: Requirements, payload: ExactEvmPayload }, 'a payment payload object'),
      paymentRequirements: Requirements,
    },
    'a JSON object',
  )
  // Rules speak the spec dialect's network string; v2 names the same network by CAIP-2.
  const ours = (n: string) => (n === caip2 ? network : n)
  return (body: unknown) =>
    pipe(
      Body.decode(body),
      E.bimap(
        (errors) => toMalformedRequest(errors),
        ({ x402Version, paymentPayload: p, paymentRequirements: r }): PaymentRequest => ({
          payload: {
            x402Version: p.x402Version,
            scheme: p.accepted.scheme,
            network: ours(p.accepted.network),
            signature: p.payload.signature,
            authorization: p.payload.authorization,
          },
          requirements: { ...r, network: ours(r.network), x402Version },
        }),
      ),
    )
}

/**
 * x402 v2 (coinbase/x402 `specs/x402-specification-v2.md`): `isValid`/`invalidReason`/`invalidMessage` and
 * `success`/`errorReason`/`errorMessage`/`transaction`/`network`. Its client throws on any non-2xx answer, so
 * rule failures stay 200.
 */
export const x402V2Dialect = (deps: { readonly policy: FacilitatorPolicy; readonly addressChecksum: AddressChecksum; readonly caip2Network: string }): Dialect => {
  const network = deps.caip2Network
  const failedSettle = (status: number, errorReason: string, errorMessage: string, extra: Record<string, unknown> = {}) => ({
    status,
    body: { success: false, errorReason, errorMessage, transaction: '', network, ...extra },
    reasonCode: errorReason,
  })
  return {
    decode: makeDecoder(deps.addressChecksum, network, deps.policy.network),
    verifyAnswer: (result) => {
      if (E.isLeft(result)) {
        return { status: 503, body: { isValid: false, invalidReason: 'service_unavailable', invalidMessage: unavailable(result.left) }, reasonCode: 'service_unavailable' }
      }
      const outcome = result.right
      if (outcome._tag === 'Valid') return { status: 200, body: { isValid: true, payer: outcome.payer } }
      const { reasonCode, message } = explainRefusal(outcome.failure, deps.policy)
      return { status: 200, body: { isValid: false, invalidReason: reasonCode, invalidMessage: message, payer: outcome.payer }, reasonCode }
    },
    settleAnswer: (result) => {
      if (E.isLeft(result)) return failedSettle(503, 'service_unavailable', unavailable(result.left))
      const outcome = result.right
      switch (outcome._tag) {
        case 'Settled':
          return {
            status: 200,
            body: {
              success: true,
              payer: outcome.payer,
              transaction: outcome.txHash,
              network,
              extra: { blockNumber: Number(outcome.blockNumber), ...(outcome.replayed ? { replayed: true } : {}) },
            },
          }
        case 'Pending':
          return failedSettle(202, 'settlement_pending', PENDING_MESSAGE, { payer: outcome.payer, transaction: outcome.txHash })
        case 'Refused': {
          const { reasonCode, message } = explainRefusal(outcome.refusal, deps.policy)
          const refusal = outcome.refusal
          const earlier = refusal._tag === 'AlreadySettling' || refusal._tag === 'TransactionReverted' ? (refusal.txHash ?? '') : ''
          return failedSettle(200, reasonCode, message, { payer: outcome.payer, transaction: earlier })
        }
        case 'IdempotencyConflict':
          return failedSettle(409, 'idempotency_key_reused', idempotencyConflictMessage)
      }
    },
    malformed: (endpoint, failure) =>
      endpoint === 'verify'
        ? { isValid: false, invalidReason: failure.reasonCode, invalidMessage: failure.message }
        : { success: false, errorReason: failure.reasonCode, errorMessage: failure.message, transaction: '', network },
  }
}
