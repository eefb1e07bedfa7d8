import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { SettleContext, Step } from './settle-context.js'
import type { SettledOutcome, SettleOutcome } from './settle-outcome.js'

/**
 * `once`: this answer may be the authorization's one `success`, or nothing (a first settle, a keyless retry);
 * `replay`: the stored outcome of the claim's own Idempotency-Key, answered however often it is asked.
 */
export type SuccessKind = 'once' | 'replay'

/**
 * docs/ARCHITECTURE.md §5.2: every `success` leaves through here. What the answer waits for first (`waitFor: 'final'`:
 * the row final, `untilFinal`) runs, then the row is marked as answered by this request, in one conditional update,
 * before the answer leaves. Losing the mark, a `once` answer is refused `authorization_already_used`; the mark's
 * outcome unknown (the journal away), it is 202 with the transaction: the caller's retry gets the success.
 * Never an infrastructure failure: the payment was broadcast.
 */
export const answerSuccess = (
  ctx: SettleContext,
  rowId: string,
  settled: SettledOutcome,
  kind: SuccessKind,
): Step<SettleOutcome> =>
  TE.fromTask(
    pipe(
      ctx.waitsForFinal ? untilFinal(ctx, settled) : T.of<SettleOutcome>(settled),
      T.chain((outcome) => (outcome._tag === 'Settled' ? markAnswered(ctx, rowId, outcome, kind) : T.of(outcome))),
    ),
  )

const markAnswered = (
  ctx: SettleContext,
  rowId: string,
  outcome: SettledOutcome,
  kind: SuccessKind,
): T.Task<SettleOutcome> =>
  pipe(
    ctx.deps.journal.markSuccessAnswered(rowId, ctx.options.answerId),
    TE.matchE(
      () => afterAll(ctx, outcome, kind),
      (transition) =>
        transition === 'applied' || kind === 'replay' ? T.of<SettleOutcome>(outcome) : afterAll(ctx, outcome, kind),
    ),
  )

/**
 * The mark was not ours, or its outcome is unknown (it may have committed): the row says which. Ours after all →
 * the success; another answer's → refused (a replay still gets its stored outcome); not readable or not marked →
 * 202.
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

/**
 * docs/ARCHITECTURE.md §5.6, `SETTLE_WAIT_FOR=final`: the success only once its row is final, within the receipt
 * timeout counted from the settle's start, else 202 `settlement_pending` with the row's transaction (the journal
 * follows it to its end). A success turned into a 202 here is not marked, so the caller's retry may still have it.
 */
const untilFinal =
  (ctx: SettleContext, settled: SettledOutcome): T.Task<SettleOutcome> =>
  async () => {
    const { deps } = ctx
    const row = await finalRow(ctx, deps.policy.receiptTimeoutMs - (deps.clock.now().getTime() - ctx.startedAt))
    if (row === undefined) return ctx.answer.pending(settled.txHash)
    if (row.state !== 'final' || row.txHash === undefined || row.blockNumber === undefined) {
      return ctx.answer.pending(row.txHash ?? settled.txHash)
    }
    const depth = deps.finality === undefined ? {} : { confirmations: deps.finality.confirmationsOf(row.blockNumber) }
    const { blockHash } = row
    return {
      ...settled,
      txHash: row.txHash,
      blockNumber: row.blockNumber,
      ...(blockHash === undefined ? {} : { blockHash }),
      final: true,
      ...depth,
    }
  }

/** The row once final, or as it is when `ms` ran out; undefined when the journal did not answer. */
const finalRow = async ({ deps, key }: SettleContext, ms: number): Promise<Settlement | undefined> => {
  const read = async () => {
    const found = await deps.journal.findByKey(key)()
    return E.isRight(found) && O.isSome(found.right) ? found.right.value : undefined
  }
  const first = await read()
  if (first === undefined || first.state === 'final' || deps.finality === undefined) return first
  // Registered before the second read: a row made final after that read is told to the waiter.
  const wait = deps.finality.waitFinal(first.id, ms)
  const second = await read()
  if (second?.state === 'final') wait.cancel()
  else await wait.done
  return read()
}
