import * as E from 'fp-ts/lib/Either.js'
import {
  explainRefusal,
  type FacilitatorPolicy,
  type InfrastructureFailure,
  type SettleOutcome,
  type VerifyOutcome,
} from '@x402-facilitator/domain'

export interface Answer {
  readonly status: number
  readonly body: Record<string, unknown>
  /** For the access log and metrics. */
  readonly reasonCode?: string
}

const unavailable = (failure: InfrastructureFailure) =>
  failure._tag === 'ChainUnavailable'
    ? `service unavailable: the chain did not answer (${failure.reason}); nothing was settled, retry later`
    : `service unavailable: the settlement journal did not answer (${failure.reason}); nothing was settled, retry later`

/** ARCHITECTURE §4, spec dialect. */
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
          error: 'settlement pending: the transaction was broadcast but not confirmed in time; look it up by its hash, do not pay again',
          errorCode: 'settlement_pending',
          txHash: outcome.txHash,
          payer: outcome.payer,
        },
        reasonCode: 'settlement_pending',
      }
    case 'Refused': {
      const { reasonCode, message } = explainRefusal(outcome.refusal, policy)
      const refusal = outcome.refusal
      const context =
        refusal._tag === 'AlreadySettling'
          ? { settlementState: refusal.state, ...(refusal.txHash ? { txHash: refusal.txHash } : {}) }
          : refusal._tag === 'TransactionReverted'
            ? { txHash: refusal.txHash, settlementState: 'reverted' }
            : {}
      return { status: 200, body: { success: false, error: message, errorCode: reasonCode, payer: outcome.payer, ...context }, reasonCode }
    }
  }
}
