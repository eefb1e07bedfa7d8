import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, SettleRefusal, VerifyFailure } from '../model/failures.js'
import type { Address, Hex, PaymentRequest } from '../model/payment.js'
import type { SettlementJournal } from '../ports/settlement-journal.js'
import { inFlightKey } from '../ports/payer-exposure.js'
import type { PayerState, PaymentTrial } from '../ports/token-reader.js'
import type { BatchItem, TransferSubmitter } from '../ports/transfer-submitter.js'
import type { PenaltyBox } from '../penalties/penalty-box.js'
import { insufficientFunds } from '../rules/chain-rules.js'
import { answerExisting, awaitOutcome, isWithinIdempotencyWindow, refuseWithJournalContext } from './settle-existing-row.js'
import { submitClaimed } from './settle-submission.js'
import { newSettlement } from './new-settlement.js'
import { sendingRefusal } from './sending-refusal.js'
import type { SubmissionQueue } from './submission-queue.js'
import { settleContext, type SettleContext, type SettledOutcome, type Step } from './settle-context.js'
import { verifyPayment, type VerifyDeps } from './verify-payment.js'

export interface SettleDeps extends VerifyDeps {
  readonly journal: SettlementJournal
  readonly submitter: TransferSubmitter
  /** Signs, records and broadcasts claimed payments, alone or batched (submission-queue.ts). */
  readonly submissions: SubmissionQueue
  /** Payers that made us spend gas for nothing (penalty-box.ts) [none: nobody is refused]. */
  readonly penalties?: PenaltyBox
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
   * What a `success` waits for before it is marked and answered (`SETTLE_WAIT_FOR=final`: the row final, else
   * `Pending`); the answer it gives is the one marked.
   */
  readonly beforeSuccess?: (settled: SettledOutcome) => T.Task<SettleOutcome>
}

export type SettleOutcome =
  | {
      readonly _tag: 'Settled'
      readonly payer: Address
      readonly txHash: Hex
      readonly blockNumber: bigint
      readonly replayed: boolean
      /** Blocks on top of `blockNumber` at the head last seen (docs/ARCHITECTURE.md §5.6), when known. */
      readonly confirmations?: number
    }
  | { readonly _tag: 'Refused'; readonly payer: Address; readonly refusal: VerifyFailure | SettleRefusal }
  /** Broadcast, no receipt within the bound: the journal follows it; never a bare failure (docs/ARCHITECTURE.md §4). */
  | { readonly _tag: 'Pending'; readonly payer: Address; readonly txHash: Hex }
  /** The `Idempotency-Key` was used with another request. */
  | { readonly _tag: 'IdempotencyConflict'; readonly payer: Address }

/**
 * docs/ARCHITECTURE.md §5: verify → claim → sign → record the attempt → broadcast → confirm.
 * Infrastructure failures are answered (503) only while nothing has been broadcast.
 */
export const settlePayment =
  (request: PaymentRequest, options: SettleOptions): RTE.ReaderTaskEither<SettleDeps, InfrastructureFailure, SettleOutcome> =>
  (deps) => {
    const ctx = settleContext(request, options, deps)
    const { idempotencyKey } = options
    if (idempotencyKey === undefined) return settleAnew(ctx)
    // docs/ARCHITECTURE.md §5.2: a retry under the same key gets the stored outcome; another request under it, 409.
    return pipe(
      deps.journal.findByIdempotencyKey(idempotencyKey),
      TE.map(O.filter(isWithinIdempotencyWindow(ctx))),
      TE.chainW(
        O.match(
          () => settleAnew(ctx),
          (row) => (row.requestHash !== options.requestHash ? TE.right(ctx.answer.idempotencyConflict()) : awaitOutcome(ctx, row, settleAnew, 'keyed')),
        ),
      ),
    )
  }

/**
 * Verify → reserve the amount → claim the row → submit (settle-submission.ts); a row already there is answered
 * from its state (settle-existing-row.ts).
 *
 * `settleAnew` and `awaitOutcome` call each other: a retry (under its `Idempotency-Key`, or the caller's keyless one)
 * awaits the row in flight, and
 * a row that turns out released is settled anew. Why this ends: each wait polls for at most `receiptTimeoutMs`; a
 * won claim goes on to submit and never comes back here, so this request claims a released row at most once;
 * otherwise `settleAnew` meets the row not released, a newer claim by another request, so the loop turns again
 * only once per claim that other requests make and release meanwhile.
 */
const settleAnew = (ctx: SettleContext): Step<SettleOutcome> =>
  pipe(
    verifyPayment(ctx.request)(ctx.deps),
    TE.chainW((verdict) =>
      verdict._tag === 'Invalid'
        ? refuseWithJournalContext(ctx, verdict.failure, settleAnew)
        : sendingRefusal(ctx, verdict.payerHasCode) !== undefined
          ? refuseSending(ctx, sendingRefusal(ctx, verdict.payerHasCode)!)
          : withReservation(ctx, verdict.payerState, () => claimAndSubmit(ctx, itemOf(ctx, verdict))),
    ),
  )

/**
 * A suspension (or a spent budget) refuses only what would claim a new row (and so send): an authorization whose row is
 * already there (not released) is answered from it, as a lost claim would be, so the caller's retry of a payment
 * answered 202 before the suspension still gets its success (answerExisting).
 */
const refuseSending = (ctx: SettleContext, refused: SettleRefusal): Step<SettleOutcome> => {
  const refusal = (): Step<SettleOutcome> => TE.right(ctx.answer.refused(refused))
  return pipe(
    ctx.deps.journal.findByKey(ctx.key),
    TE.map(O.filter((row) => row.state !== 'released')),
    TE.chainW(O.match(refusal, (row) => answerExisting(ctx, row, settleAnew))),
    TE.orElseW(refusal),
  )
}

/** What the settle sends: the bytes verify judged and tried, and what the trial used. */
const itemOf = (ctx: SettleContext, verdict: { readonly payerState: PaymentTrial; readonly signature: Hex; readonly payerHasCode: boolean }): BatchItem => {
  const { transfer } = verdict.payerState
  const item = { authorization: ctx.request.payload.authorization, signature: verdict.signature, payerHasCode: verdict.payerHasCode }
  return transfer._tag !== 'WouldSucceed' ? item : { ...item, executionGas: transfer.gasUsed, ...(transfer.gasCap === undefined ? {} : { trialGasCap: transfer.gasCap }) }
}

/**
 * Rule 9 again, atomically with taking the amount out of what later settles of this payer may spend. A settle answered
 * 202 keeps its amount until its row ends (recovery says when): its transaction may still be mined.
 */
const withReservation = (ctx: SettleContext, state: PayerState, settle: () => Step<SettleOutcome>): Step<SettleOutcome> => {
  const { authorization } = ctx.request.payload
  const { exposure } = ctx.deps
  return pipe(
    exposure.reserve(authorization.from, authorization.value, state.balance),
    O.match(
      // Refused, unless this is the caller's retry of a settle in flight (its own amount is what is reserved).
      () => refuseWithJournalContext(ctx, insufficientFunds(state, exposure.inFlight(authorization.from), authorization), settleAnew),
      (reservation) =>
        pipe(
          settle(),
          T.map((result) => {
            if (E.isRight(result) && result.right._tag === 'Pending') reservation.keepUntilFinished(inFlightKey(authorization.from, authorization.nonce))
            else reservation.release()
            return result
          }),
        ),
    ),
  )
}

/**
 * docs/ARCHITECTURE.md §5.2: one atomic insert per authorization; a row already there is answered instead. A payment
 * a settler batch did not run (or failed while it would succeed alone) is released and claimed again here, alone
 * with what is left of its request's wait (`aloneUntil`, its deadline).
 */
const claimAndSubmit = (ctx: SettleContext, item: BatchItem, aloneUntil?: number): Step<SettleOutcome> =>
  pipe(
    ctx.deps.journal.claim(newSettlement(ctx, item.signature)),
    TE.chainW((claim) =>
      claim._tag === 'Conflict'
        ? answerExisting(ctx, claim.existing, settleAnew)
        : aloneUntil === undefined
          ? submitClaimed(ctx, claim.settlement, item, (deadline) => sendAloneAgain(ctx, item, deadline))
          : submitClaimed(ctx, claim.settlement, item, undefined, aloneUntil),
    ),
  )

/** A payment its batch did not run, sent again alone: unless its payer may no longer be sent (suspended, budget spent). */
const sendAloneAgain = (ctx: SettleContext, item: BatchItem, deadline: number): Step<SettleOutcome> => {
  const refused = sendingRefusal(ctx, item.payerHasCode === true)
  return refused === undefined ? claimAndSubmit(ctx, item, deadline) : TE.right(ctx.answer.refused(refused))
}
