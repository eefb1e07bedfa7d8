import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { VerifyFailure } from '../model/failures.js'
import { inFlightKey } from '../ports/payer-exposure.js'
import type { Settlement } from '../ports/settlement-journal.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import type { SettleOutcome } from './settle-payment.js'
import type { SettleContext, Step } from './settle-context.js'
import { receiptForRow } from './row-receipt.js'

const DAY_MS = 24 * 60 * 60 * 1000
const POLL_MS = 100

/** `settleAnew` of settle-payment.ts, handed in: where awaiting a row leads when the row turns out released. */
export type SettleAnew = (ctx: SettleContext) => Step<SettleOutcome>

/** The row's `Idempotency-Key` still holds its outcome (docs/ARCHITECTURE.md §5.2) [24 h]. */
export const isWithinIdempotencyWindow =
  ({ deps }: SettleContext) =>
  (row: Settlement): boolean =>
    deps.clock.now().getTime() - row.createdAt.getTime() < (deps.policy.idempotencyWindowMs ?? DAY_MS)

/** The row is this very request, retried under its `Idempotency-Key`: its outcome is the answer. */
const isOurRetry = (ctx: SettleContext, row: Settlement): boolean =>
  ctx.options.idempotencyKey !== undefined &&
  row.idempotencyKey === ctx.options.idempotencyKey &&
  row.requestHash === ctx.options.requestHash &&
  isWithinIdempotencyWindow(ctx)(row)

/** The authorization already has a row: our retry awaits its outcome; any other request is refused with it. */
export const answerExisting = (ctx: SettleContext, row: Settlement, settleAnew: SettleAnew): Step<SettleOutcome> =>
  isOurRetry(ctx, row) ? awaitOutcome(ctx, row, settleAnew) : TE.right(ctx.answer.alreadySettling(row))

/** A nonce used on-chain is answered with our own row when we settled it, so the caller can look it up. */
export const refuseWithJournalContext = (ctx: SettleContext, failure: VerifyFailure, settleAnew: SettleAnew): Step<SettleOutcome> =>
  failure._tag !== 'AuthorizationUsed'
    ? TE.right(ctx.answer.refused(failure))
    : pipe(
        ctx.deps.journal.findByKey(ctx.key),
        TE.map(O.filter((row) => row.state !== 'released')),
        TE.chainW(O.match(() => TE.right(ctx.answer.refused(failure)), (row) => answerExisting(ctx, row, settleAnew))),
        TE.orElseW(() => TE.right(ctx.answer.refused(failure))),
      )

/**
 * Waits (bounded by `receiptTimeoutMs`) for the row's outcome; a retry never starts a second transaction for one
 * authorization. A row released meanwhile (nothing of it reached the chain) is settled anew: see `settleAnew`. The
 * bound counts the polls' sleeps and the clock both: each poll also asks the chain and the journal, which may be slow.
 */
export const awaitOutcome = (
  ctx: SettleContext,
  row: Settlement,
  settleAnew: SettleAnew,
  waitedMs = 0,
  startedAt = ctx.deps.clock.now().getTime(),
): Step<SettleOutcome> => {
  const { answer, deps } = ctx
  switch (row.state) {
    case 'confirmed':
    case 'final':
      rowEnded(ctx)
      return TE.right(
        row.txHash !== undefined && row.blockNumber !== undefined
          ? answer.settled(row.txHash, row.blockNumber, true)
          : answer.alreadySettling(row),
      )
    case 'reverted':
      rowEnded(ctx)
      return TE.right(row.txHash ? answer.refused({ _tag: 'TransactionReverted', txHash: row.txHash }) : answer.alreadySettling(row))
    case 'released':
      return settleAnew(ctx)
    case 'cancelled':
    case 'unsettleable':
      rowEnded(ctx)
      return TE.right(answer.alreadySettling(row))
    case 'claimed':
    case 'submitted':
      return pipe(
        minedReceipt(ctx, row),
        TE.chainW(
          O.match(
            () => {
              const elapsed = Math.max(waitedMs, deps.clock.now().getTime() - startedAt)
              if (elapsed >= deps.policy.receiptTimeoutMs) return TE.right(row.txHash ? answer.pending(row.txHash) : answer.alreadySettling(row))
              return pipe(
                TE.fromTask(deps.clock.sleep(POLL_MS)),
                TE.chainW(() => deps.journal.findByKey(ctx.key)),
                TE.chainW(O.match(() => settleAnew(ctx), (next) => awaitOutcome(ctx, next, settleAnew, waitedMs + POLL_MS, startedAt))),
              )
            },
            (receipt) => {
              rowEnded(ctx)
              return TE.right(answer.settled(receipt.txHash, receipt.blockNumber, true))
            },
          ),
        ),
      )
  }
}

/** The row reached an end state this request saw: a 202's amount no longer counts for its payer (rule 9). */
const rowEnded = ({ deps, key }: SettleContext): void => deps.exposure.finished(inFlightKey(key.payer, key.nonce))

/**
 * A retry does not wait for recovery to hear of the receipt (its pass may be seconds away): the chain is asked for
 * the row's attempts, and a successful receipt found is recorded (a failed write is recovery's to redo). A reverted
 * one is left to recovery, which first asks whether a copy of the authorization was mined instead.
 */
const minedReceipt = ({ deps }: SettleContext, row: Settlement): TE.TaskEither<never, O.Option<TransferReceipt>> => {
  if (row.state !== 'submitted' || row.attempts.length === 0) return TE.right(O.none)
  return pipe(
    deps.submitter.receiptOf(row.attempts.map((a) => a.txHash)),
    TE.map(O.map((receipt) => receiptForRow(row.attempts, receipt))),
    TE.map(O.filter((receipt) => receipt.succeeded)),
    TE.orElseW(() => TE.right(O.none)),
    TE.chainFirstW(
      O.match(
        (): TE.TaskEither<never, unknown> => TE.right(undefined),
        (receipt) =>
          pipe(
            deps.journal.markMined({ id: row.id, generation: row.generation }, receipt),
            TE.orElseW(() => TE.right('stale' as const)),
          ),
      ),
    ),
  )
}
