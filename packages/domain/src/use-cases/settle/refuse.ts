import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, SettleRefusal, VerifyFailure } from '../../model/failures.js'
import type { Settlement } from '../../ports/settlement-row.js'
import { answerExisting, isRetryOfRow, mayBeKeylessRetry } from './await-row.js'
import type { SettleContext, Step } from './settle-context.js'
import { answer, type Turn } from './settle-outcome.js'

/**
 * A released row whose authorization the chain says is used may have been paid by its own attempt after all
 * (docs/ARCHITECTURE.md §5.5): judged now, as recovery's next pass would, so that the caller's retry is answered
 * from the row it confirms rather than refused. Only for the row's own retry (anyone may send a used authorization
 * again: no chain reads for them), and not for a row judged already (its watch ended). Answers the row as it stands
 * after.
 */
const judgedIfPaid = (
  ctx: SettleContext,
  row: Settlement,
): TE.TaskEither<InfrastructureFailure, O.Option<Settlement>> =>
  !isRetryOfRow(ctx, row) ||
  row.state !== 'released' ||
  row.blockHash !== undefined ||
  row.watchEndedAt !== undefined ||
  row.attempts.some((a) => a.batchIndex !== undefined)
    ? TE.right(O.some(row))
    : pipe(
        TE.fromTask(ctx.deps.mechanism.judgeReleased(row)),
        TE.chainW(() => ctx.deps.journal.findByKey(ctx.key)),
      )

/**
 * A nonce used on-chain is answered with our own row when we settled it, so the caller can look it up. Any other
 * refusal of a keyless request is its own answer unless the request is the caller's retry of a row in flight (the
 * chain or the amount it holds may refuse the retry what the first request was granted).
 */
export const refuseWithJournalContext = (ctx: SettleContext, failure: VerifyFailure): Step<Turn> => {
  const refusal = (): Step<Turn> => TE.right(answer(ctx.answer.refused(failure)))
  const used = failure._tag === 'AuthorizationUsed'
  if (!used && !mayBeKeylessRetry(ctx)) return refusal()
  return pipe(
    ctx.deps.journal.findByKey(ctx.key),
    TE.chainW(
      O.match(
        () => TE.right(O.none),
        (row) => (used ? judgedIfPaid(ctx, row) : TE.right(O.some(row))),
      ),
    ),
    TE.map(O.filter((row) => row.state !== 'released')),
    TE.chainW(O.match(refusal, (row) => (used ? answerExisting(ctx, row) : answerExisting(ctx, row, refusal)))),
    TE.orElseW(refusal),
  )
}

/**
 * A suspension (or a spent budget) refuses only what would claim a new row (and so send): an authorization whose row is
 * already there (not released) is answered from it, as a lost claim would be, so the caller's retry of a payment
 * answered 202 before the suspension still gets its success (answerExisting).
 */
export const refuseSending = (ctx: SettleContext, refused: SettleRefusal): Step<Turn> => {
  const refusal = (): Step<Turn> => TE.right(answer(ctx.answer.refused(refused)))
  return pipe(
    ctx.deps.journal.findByKey(ctx.key),
    TE.map(O.filter((row) => row.state !== 'released')),
    TE.chainW(O.match(refusal, (row) => answerExisting(ctx, row))),
    TE.orElseW(refusal),
  )
}

/**
 * docs/ARCHITECTURE.md §5.7: a payer whose own transaction reverted (with code: for any reason; without: for its
 * balance or allowance) is not sent again for a while, nor is any payer with code once their reverted lone
 * transactions have spent the network's budget, nor a payer without code not seen paying once reverts for funds have
 * spent theirs.
 */
export const sendingRefusal = (ctx: SettleContext, payerHasCode: boolean): SettleRefusal | undefined => {
  const { payer } = ctx.key
  const penalties = ctx.deps.penalties
  const suspended = penalties?.sendingRefusedUntil(payer)
  if (suspended !== undefined) return { _tag: 'PayerSuspended', payer, until: suspended }
  if (payerHasCode) {
    const spent = penalties?.contractPayersRefusedUntil()
    return spent === undefined ? undefined : { _tag: 'ContractPayerGasBudgetSpent', payer, until: spent }
  }
  const spent = penalties?.newPayersRefusedUntil(payer)
  return spent === undefined ? undefined : { _tag: 'NewPayerGasBudgetSpent', payer, until: spent }
}

/**
 * Why a payer with code whose item failed in a batch is not sent again: the spent budget first, else its suspension.
 */
export const contractPayerRefusal = (ctx: SettleContext): SettleRefusal => {
  const { payer } = ctx.key
  const budgetSpent = ctx.deps.penalties?.contractPayersRefusedUntil()
  if (budgetSpent !== undefined) return { _tag: 'ContractPayerGasBudgetSpent', payer, until: budgetSpent }
  return sendingRefusal(ctx, true) ?? { _tag: 'PayerSuspended', payer, until: ctx.deps.clock.now() }
}
