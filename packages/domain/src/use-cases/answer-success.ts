import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as E from 'fp-ts/lib/Either.js'
import type { ClaimRef } from '../ports/settlement-journal.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import type { SettleOutcome } from './settle-payment.js'
import type { SettleContext, SettledOutcome, Step } from './settle-context.js'

/**
 * `once`: this answer may be the authorization's one `success`, or nothing (a first settle, a keyless retry);
 * `replay`: the stored outcome of the claim's own Idempotency-Key, answered however often it is asked.
 */
export type SuccessKind = 'once' | 'replay'

/**
 * docs/ARCHITECTURE.md §5.2: every `success` leaves through here. What the answer waits for first (`beforeSuccess`:
 * with `SETTLE_WAIT_FOR=final`, the row final) runs, then the row is marked as answered by this request, in one
 * conditional update, before the answer leaves. Losing the mark, a `once` answer is refused `authorization_already_used`;
 * the mark's outcome unknown (the journal away), it is 202 with the transaction: the caller's retry gets the success.
 * Never an infrastructure failure: the payment was broadcast.
 */
export const answerSuccess = (ctx: SettleContext, rowId: string, settled: SettledOutcome, kind: SuccessKind): Step<SettleOutcome> =>
  TE.fromTask(
    pipe(
      ctx.options.beforeSuccess === undefined ? T.of<SettleOutcome>(settled) : ctx.options.beforeSuccess(settled),
      T.chain((outcome) => (outcome._tag === 'Settled' ? markAnswered(ctx, rowId, outcome, kind) : T.of(outcome))),
    ),
  )

/**
 * A settle's own successful receipt, recorded and answered `once`. With nothing to wait for first (no `beforeSuccess`),
 * the receipt's write takes the success mark too (`markMined` with the answer id): one statement where two would do.
 * The mark ours → the success; otherwise (the write failed or was stale, or another answer holds the mark) →
 * `answerSuccess`, which marks or tells. The funds moved whatever the journal says: a failed write is completed by recovery.
 */
export const recordOwnSuccess = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt): Step<SettleOutcome> => {
  const settled = ctx.answer.settled(receipt.txHash, receipt.blockNumber, false)
  if (ctx.options.beforeSuccess !== undefined) return pipe(ctx.deps.journal.markMined(ref, receipt), T.chain(() => answerSuccess(ctx, ref.id, settled, 'once')))
  return pipe(
    ctx.deps.journal.markMined(ref, receipt, ctx.options.answerId),
    T.chain((mined) => (E.isRight(mined) && mined.right.successMarked ? TE.right<never, SettleOutcome>(settled) : answerSuccess(ctx, ref.id, settled, 'once'))),
  )
}

const markAnswered = (ctx: SettleContext, rowId: string, outcome: SettledOutcome, kind: SuccessKind): T.Task<SettleOutcome> =>
  pipe(
    ctx.deps.journal.markSuccessAnswered(rowId, ctx.options.answerId),
    TE.matchE(
      () => afterAll(ctx, outcome, kind),
      (transition) => (transition === 'applied' || kind === 'replay' ? T.of<SettleOutcome>(outcome) : afterAll(ctx, outcome, kind)),
    ),
  )

/**
 * The mark was not ours, or its outcome is unknown (it may have committed): the row says which. Ours after all →
 * the success; another answer's → refused (a replay still gets its stored outcome); not readable or not marked → 202.
 */
const afterAll = (ctx: SettleContext, outcome: SettledOutcome, kind: SuccessKind): T.Task<SettleOutcome> =>
  pipe(
    ctx.deps.journal.findByKey(ctx.key),
    TE.match(
      (): SettleOutcome => ctx.answer.pending(outcome.txHash),
      O.match(
        (): SettleOutcome => ctx.answer.pending(outcome.txHash),
        (row): SettleOutcome => {
          if (row.successAnsweredBy === undefined) return ctx.answer.pending(outcome.txHash)
          if (row.successAnsweredBy === ctx.options.answerId || kind === 'replay') return outcome
          return ctx.answer.alreadySettling(row)
        },
      ),
    ),
  )
