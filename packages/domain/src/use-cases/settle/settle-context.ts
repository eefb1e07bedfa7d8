import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import type { FacilitatorPolicy } from '../../model/payment.js'
import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { Clock } from '../../ports/clock.js'
import type { PayerExposure } from '../../ports/payer-exposure.js'
import type { Payment, PaymentMechanism } from '../../ports/payment-mechanism.js'
import type { SettleFinality } from '../../ports/settle-finality.js'
import type { NewSettlement, SettlementKey } from '../../ports/settlement-row.js'
import type { ClaimsJournal } from '../../ports/journal/claims-journal.js'
import type { SettlementLookups } from '../../ports/journal/settlement-lookups.js'
import type { TransactionReceipts } from '../../ports/payment-ends.js'
import type { SubmissionQueue } from '../../ports/submissions.js'
import type { SettleAnswers } from './settle-outcome.js'

export interface SettleDeps {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  /** What of a payment the chain is asked beyond the payment itself (ports/payment-mechanism.ts). */
  readonly mechanism: PaymentMechanism
  readonly exposure: PayerExposure
  readonly journal: ClaimsJournal & SettlementLookups
  /** The key's transactions' receipts (a retry awaiting its row reads them). */
  readonly submitter: TransactionReceipts
  /** Signs, records and broadcasts claimed payments, alone or batched (submission-queue.ts). */
  readonly submissions: SubmissionQueue
  /** Payers that made us spend gas for nothing (penalty-box.ts) [none: nobody is refused]. */
  readonly penalties?: PenaltyBox
  /** How deep a block is, and the wait for a row final (`waitFor: 'final'`) [none: no `confirmations`, no wait]. */
  readonly finality?: SettleFinality
}

export interface SettleOptions {
  /** The requirements as received, stored on the row for audit. */
  readonly requirementsRecord: Readonly<Record<string, unknown>>
  /** Unique to this request: the row records it when this answer is the authorization's `success` (§5.2). */
  readonly answerId: string
  readonly idempotencyKey?: string
  /** The canonical request's digest: a retry of the same request has the same one (docs/ARCHITECTURE.md §5.2). */
  readonly requestHash?: string
  /** Who asks: the API key's id, else the client's address; with `requestHash`, what lets a keyless retry succeed. */
  readonly caller?: string
  /**
   * What a `success` waits for before it is marked and answered (`SETTLE_WAIT_FOR`) [receipt]: `final`, the row final
   * within the receipt timeout, else `Pending` (answer-success.ts); the answer it gives is the one marked.
   */
  readonly waitFor?: 'receipt' | 'final'
}

/** One step of a settle; infrastructure failures are answered (503) only while nothing has been broadcast. */
export type Step<A> = TE.TaskEither<InfrastructureFailure, A>

/** One settle request as its steps see it, built once by `settlePayment` (settle-payment.ts). */
export interface SettleContext {
  /** The request as its mechanism reads it: how it is judged, claimed and reserved. */
  readonly payment: Payment
  readonly options: SettleOptions
  readonly deps: SettleDeps
  /** The authorization's row in the journal: one per key (docs/ARCHITECTURE.md §5). */
  readonly key: SettlementKey
  readonly answer: SettleAnswers
  /** `waitFor: 'final'`: a success waits for its row final before it is marked (answer-success.ts). */
  readonly waitsForFinal: boolean
  /** When the settle began (clock ms): `waitFor: 'final'` waits at most the receipt timeout from here. */
  readonly startedAt: number
}

/** The row a settle claims: the payment's terms, as its mechanism records them, and who asked under which key. */
export const newSettlement = ({ payment, options, deps, key }: SettleContext, signature: string): NewSettlement => ({
  ...key,
  ...payment.claimTerms(signature),
  requirements: options.requirementsRecord,
  owner: deps.policy.facilitator,
  idempotencyKey: options.idempotencyKey,
  requestHash: options.requestHash,
  caller: options.caller,
})
