import type * as E from 'fp-ts/lib/Either.js'
import type {
  InfrastructureFailure,
  MalformedRequest,
  PaymentRequest,
  SettleOptions,
  SettleOutcome,
  SettleRefusal,
  VerifyFailure,
  VerifyOutcome,
} from '@x402-facilitator/domain'
import type { Answer } from '../respond.js'

/** A verify/settle body, decoded: the request, and its requirements as received (kept for audit, docs/ARCHITECTURE.md §5.2). */
export interface DecodedRequest {
  readonly request: PaymentRequest
  readonly requirementsRecord: SettleOptions['requirementsRecord']
}

/** A wire format of verify/settle: how a body is decoded and how each outcome is answered. */
export interface Dialect {
  readonly decode: (body: unknown) => E.Either<MalformedRequest, DecodedRequest>
  readonly verifyAnswer: (result: E.Either<InfrastructureFailure, VerifyOutcome>) => Answer
  readonly settleAnswer: (result: E.Either<InfrastructureFailure, SettleOutcome>) => Answer
  readonly malformed: (endpoint: 'verify' | 'settle', failure: MalformedRequest) => Answer
}

export const PENDING_MESSAGE =
  'settlement pending: the transaction was broadcast but not confirmed in time; look it up by its hash, do not pay again'

export const idempotencyConflictMessage = 'Idempotency-Key already used with another request'

export const unavailable = (failure: InfrastructureFailure) =>
  failure._tag === 'ChainUnavailable'
    ? `service unavailable: the chain did not answer (${failure.reason}); nothing was settled, retry later`
    : `service unavailable: the settlement journal did not answer (${failure.reason}); nothing was settled, retry later`

/** The earlier transaction (and its state) that a refusal points at, so the caller can look it up. */
export const refusalContext = (refusal: VerifyFailure | SettleRefusal): { txHash?: string; settlementState?: string } =>
  refusal._tag === 'AlreadySettling'
    ? { settlementState: refusal.state, txHash: refusal.txHash }
    : refusal._tag === 'TransactionReverted'
      ? { txHash: refusal.txHash, settlementState: 'reverted' }
      : {}
