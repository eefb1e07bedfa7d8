import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { TxHash } from '../../model/payment.js'
import { inFlightKey } from '../../ports/payer-exposure.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { TransferReceipt } from '../../ports/transaction-receipt.js'
import { recordReceipt } from '../record-receipt.js'
import { answerSuccess } from './answer-success.js'
import type { SettleContext, Step } from './settle-context.js'
import { answer, type Turn } from './settle-outcome.js'
import { claimRefOf } from '../../ports/settlement-row.js'

const DAY_MS = 24 * 60 * 60 * 1000
const POLL_MS = 100

/** The row's `Idempotency-Key` still holds its outcome (docs/ARCHITECTURE.md §5.2) [24 h]. */
export const isWithinIdempotencyWindow =
  ({ deps }: SettleContext) =>
  (row: Settlement): boolean =>
    deps.clock.now().getTime() - row.createdAt.getTime() < (deps.policy.idempotencyWindowMs ?? DAY_MS)

/** How a retry was recognised (docs/ARCHITECTURE.md §5.2): by its `Idempotency-Key`, or by its caller and request. */
export type RetryKind = 'keyed' | 'keyless'

/** The row is this very request, retried under its `Idempotency-Key`: its outcome is the answer. */
const isOurRetry = (ctx: SettleContext, row: Settlement): boolean =>
  ctx.options.idempotencyKey !== undefined &&
  row.idempotencyKey === ctx.options.idempotencyKey &&
  row.requestHash === ctx.options.requestHash &&
  isWithinIdempotencyWindow(ctx)(row)

const isSameRequest = ({ options }: SettleContext, row: Settlement): boolean =>
  options.requestHash !== undefined && row.requestHash === options.requestHash

/** A keyless request that names its caller and its digest: it may be a retry of that caller's same request. */
export const mayBeKeylessRetry = ({ options }: SettleContext): boolean =>
  options.idempotencyKey === undefined && options.caller !== undefined && options.requestHash !== undefined

/**
 * The same caller's same request again, without a key, and no `success` answered for the row yet (so every answer it
 * had was not one): the official x402 resource server's retry after a 202. It may have the one success.
 */
const isCallersKeylessRetry = (ctx: SettleContext, row: Settlement): boolean =>
  mayBeKeylessRetry(ctx) &&
  row.caller === ctx.options.caller &&
  row.requestHash === ctx.options.requestHash &&
  row.successAnsweredBy === undefined

/** The request is the row's own, retried: by its `Idempotency-Key`, or keyless by its caller and digest. */
export const isRetryOfRow = (ctx: SettleContext, row: Settlement): boolean =>
  isOurRetry(ctx, row) || isCallersKeylessRetry(ctx, row)

/** A released row held for its attempt that may still be mined: 202 naming it. */
const isHeldRelease = (ctx: SettleContext, row: Settlement): boolean => ctx.payment.heldWhileReleased(row)

/** The authorization already has a row: our retry awaits its outcome; any other request is refused (`otherwise`). */
export const answerExisting = (
  ctx: SettleContext,
  row: Settlement,
  otherwise: () => Step<Turn> = () => TE.right(answer(ctx.answer.alreadySettling(row))),
): Step<Turn> =>
  // An `upto` settle of 0 is answered again to the same request, whoever asks: nothing moved, nothing can be granted
  // twice; another amount is refused, naming the row `waived` (waive.ts).
  row.state === 'waived'
    ? TE.right(answer(isSameRequest(ctx, row) ? ctx.answer.waived(true) : ctx.answer.alreadySettling(row)))
    : isHeldRelease(ctx, row)
      ? TE.right(answer(row.txHash ? ctx.answer.pending(row.txHash) : ctx.answer.alreadySettling(row)))
      : isOurRetry(ctx, row)
        ? awaitOutcome(ctx, row, 'keyed')
        : isCallersKeylessRetry(ctx, row)
          ? awaitOutcome(ctx, row, 'keyless')
          : otherwise()

/**
 * Waits for the row's outcome, a retry never starting a second transaction for one authorization; a success is
 * answered through `answerSuccess` (a keyed retry's as a replay of its stored outcome when that was answered before it
 * came, else — and a keyless one's — as the one success or nothing). The wait is bounded by `receiptTimeoutMs`, a
 * keyless retry's also by its `maxTimeoutSeconds`.
 * A row released meanwhile (nothing of it reached the chain), or gone, is settled anew: the next turn of the settle
 * (settle-payment.ts). The bound counts the polls' sleeps and the clock both: each poll also asks the chain and the
 * journal, which may be slow.
 */
export const awaitOutcome = (
  ctx: SettleContext,
  row: Settlement,
  retry: RetryKind,
  waitedMs = 0,
  startedAt = ctx.deps.clock.now().getTime(),
  // A keyed request replays the success only when it was answered before it came (a lost answer's retry); one beside
  // the settle in flight (a duplicate sent at once) may be the one success, after a 202, or nothing: never a second.
  replay = retry === 'keyed' && row.successAnsweredBy !== undefined,
): Step<Turn> => {
  const { deps } = ctx
  const keyed = retry === 'keyed'
  const boundMs = keyed
    ? deps.policy.receiptTimeoutMs
    : Math.min(ctx.payment.maxTimeoutSeconds * 1000, deps.policy.receiptTimeoutMs)
  const success = (txHash: TxHash, blockNumber: bigint, blockHash: TxHash | undefined) =>
    pipe(
      answerSuccess(
        ctx,
        row.id,
        ctx.answer.settled(txHash, blockNumber, replay, blockHash, row.createdAt),
        replay ? 'replay' : 'once',
      ),
      TE.map(answer),
    )
  const answered = (outcome: ReturnType<typeof ctx.answer.refused>) => TE.right(answer(outcome))
  switch (row.state) {
    case 'confirmed':
    case 'final':
      rowEnded(ctx)
      return row.txHash !== undefined && row.blockNumber !== undefined
        ? success(row.txHash, row.blockNumber, row.blockHash)
        : answered(ctx.answer.alreadySettling(row))
    case 'reverted':
      rowEnded(ctx)
      return answered(
        row.txHash
          ? ctx.answer.refused({ _tag: 'TransactionReverted', txHash: row.txHash })
          : ctx.answer.alreadySettling(row),
      )
    case 'released':
      // Nothing of it can move: what a 202 of it kept (rule 9) must not refuse the fresh settle its own amount.
      rowEnded(ctx)
      return TE.right({ _tag: 'Anew' })
    case 'waived':
      return answered(ctx.answer.waived(true))
    case 'cancelled':
    case 'unsettleable':
      rowEnded(ctx)
      return answered(ctx.answer.alreadySettling(row))
    case 'claimed':
    case 'submitted':
      return pipe(
        minedReceipt(ctx, row),
        TE.chainW(
          O.match(
            (): Step<Turn> => {
              const elapsed = Math.max(waitedMs, deps.clock.now().getTime() - startedAt)
              if (elapsed >= boundMs) {
                return answered(row.txHash ? ctx.answer.pending(row.txHash) : ctx.answer.alreadySettling(row))
              }
              return pipe(
                TE.fromTask(deps.clock.sleep(POLL_MS)),
                TE.chainW(() => deps.journal.findByKey(ctx.key)),
                TE.chainW(
                  O.match(
                    (): Step<Turn> => TE.right({ _tag: 'Anew' }),
                    (next) => awaitOutcome(ctx, next, retry, waitedMs + POLL_MS, startedAt, replay),
                  ),
                ),
              )
            },
            (receipt) => {
              rowEnded(ctx)
              return success(receipt.txHash, receipt.blockNumber, receipt.blockHash)
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
  const ref = claimRefOf(row)
  return pipe(
    deps.submitter.receiptOf(row.attempts.map((a) => a.txHash)),
    TE.chainW(
      O.match(
        () => TE.right(O.none),
        (mined) =>
          pipe(
            recordReceipt(
              { journal: deps.journal, ends: deps.mechanism.ends },
              { ref, payment: row, claimedAt: row.createdAt, attempts: row.attempts },
              mined,
              {
                by: 'successes',
              },
            ),
            TE.map((recorded) => (recorded._tag === 'Mined' ? O.some(recorded.receipt) : O.none)),
          ),
      ),
    ),
    TE.orElseW(() => TE.right(O.none)),
  )
}
