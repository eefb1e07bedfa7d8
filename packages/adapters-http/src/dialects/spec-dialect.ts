import * as E from 'fp-ts/lib/Either.js'
import {
  explainRefusal,
  makePaymentRequestDecoder,
  type FacilitatorPolicy,
  type InfrastructureFailure,
  type SettleOutcome,
  type VerifyOutcome,
} from '@x402-facilitator/domain'
import { idempotencyConflictMessage, PENDING_MESSAGE, refusalContext, unavailable, type Answer, type Dialect } from './dialect.js'

/** docs/ARCHITECTURE.md §4, the spec's own dialect. */
export const verifyAnswer = (result: E.Either<InfrastructureFailure, VerifyOutcome>, policy: FacilitatorPolicy): Answer => {
  if (E.isLeft(result)) {
    return { status: 503, body: { valid: false, invalidReason: unavailable(result.left), reasonCode: 'service_unavailable' }, reasonCode: 'service_unavailable' }
  }
  const outcome = result.right
  if (outcome._tag === 'Valid') return { status: 200, body: { valid: true, payer: outcome.payer } }
  const { reasonCode, message } = explainRefusal(outcome.failure, policy)
  return { status: 200, body: { valid: false, invalidReason: message, reasonCode, payer: outcome.payer }, reasonCode }
}

export const settleAnswer = (result: E.Either<InfrastructureFailure, SettleOutcome>, policy: FacilitatorPolicy): Answer => {
  if (E.isLeft(result)) {
    return { status: 503, body: { success: false, error: unavailable(result.left), errorCode: 'service_unavailable' }, reasonCode: 'service_unavailable' }
  }
  const outcome = result.right
  switch (outcome._tag) {
    case 'Settled':
      return {
        status: 200,
        body: {
          success: true,
          txHash: outcome.txHash,
          blockNumber: Number(outcome.blockNumber),
          payer: outcome.payer,
          ...(outcome.replayed ? { replayed: true } : {}),
        },
      }
    case 'Pending':
      return {
        status: 202,
        body: {
          success: false,
          error: PENDING_MESSAGE,
          errorCode: 'settlement_pending',
          txHash: outcome.txHash,
          payer: outcome.payer,
        },
        reasonCode: 'settlement_pending',
      }
    case 'Refused': {
      const { reasonCode, message } = explainRefusal(outcome.refusal, policy)
      return { status: 200, body: { success: false, error: message, errorCode: reasonCode, payer: outcome.payer, ...refusalContext(outcome.refusal) }, reasonCode }
    }
    case 'IdempotencyConflict':
      return { status: 409, body: { success: false, error: idempotencyConflictMessage, errorCode: 'idempotency_key_reused' }, reasonCode: 'idempotency_key_reused' }
  }
}

export const specDialect = (deps: { readonly policy: FacilitatorPolicy; readonly addressChecksum: (a: string) => string }): Dialect => ({
  decode: makePaymentRequestDecoder(deps.addressChecksum),
  verifyAnswer: (result) => verifyAnswer(result, deps.policy),
  settleAnswer: (result) => settleAnswer(result, deps.policy),
  malformed: (endpoint, failure) =>
    endpoint === 'verify'
      ? { valid: false, invalidReason: failure.message, reasonCode: failure.reasonCode }
      : { success: false, error: failure.message, errorCode: failure.reasonCode },
})
