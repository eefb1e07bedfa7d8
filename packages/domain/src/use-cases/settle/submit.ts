import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { chainUnavailable } from '../../model/failures.js'
import { inFlightKey, type Reservation } from '../../ports/payer-exposure.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { SubmissionItem } from '../../ports/submissions.js'
import type { TransferReceipt } from '../../ports/transaction-receipt.js'
import { recordReceipt, type ReceiptDeps, type ReceiptRow } from '../record-receipt.js'
import { answerSuccess } from './answer-success.js'
import { contractPayerRefusal } from './refuse.js'
import type { SettleContext, Step } from './settle-context.js'
import { answer, type Turn } from './settle-outcome.js'
import { claimRefOf } from '../../ports/settlement-row.js'

/**
 * The shortest wait a request may ask (`maxTimeoutSeconds` 1): what a payment sent again past its deadline still gets
 * to broadcast.
 */
const MIN_WAIT_MS = 1000

/**
 * What follows a successful claim (docs/ARCHITECTURE.md §5.3–5.4, §5.7): sign → record the attempt → broadcast
 * (alone or in a settler batch, the submission queue's choice) → await the receipt → record it
 * (`recordOwnReceipt`). Once broadcast, the answer is the outcome (or Pending), never an infrastructure failure. A
 * first send (`deadline` unset) whose item its batch did not run (its row released by the group), or failed in its
 * batch while its lone trial succeeds (released here, never `reverted`), goes alone on the next turn (`Alone`), before
 * the request's deadline (clock ms): its first broadcast plus its wait, min(`maxTimeoutSeconds`, receipt timeout). That
 * lone transaction (`deadline` set) waits what is left of it (at least `MIN_WAIT_MS`), then the answer is 202.
 */
export const submit = (
  ctx: SettleContext,
  row: Settlement,
  item: SubmissionItem,
  reservation: Reservation,
  deadline?: number,
): Step<Turn> => {
  const ref = claimRefOf(row)
  const fullWaitMs = Math.min(ctx.payment.maxTimeoutSeconds * 1000, ctx.deps.policy.receiptTimeoutMs)
  const waitMs = deadline === undefined ? fullWaitMs : Math.max(MIN_WAIT_MS, deadline - ctx.deps.clock.now().getTime())
  const first = deadline === undefined
  const alone = (sentAt: number): Turn => ({ _tag: 'Alone', item, deadline: sentAt + fullWaitMs, reservation })
  return pipe(
    () =>
      ctx.deps.submissions.submit({
        ref,
        key: ctx.key,
        item,
        waitMs,
        onLateReceipt: recordLatePayment(ctx, row),
        onLateRelease: () => ctx.deps.exposure.finished(inFlightKey(ctx.key.payer, ctx.key.nonce)),
        ...(first ? {} : { alone: true }),
      }),
    TE.chainW((sent): Step<Turn> => {
      switch (sent._tag) {
        case 'Pending':
          return TE.right(answer(ctx.answer.pending(sent.txHash)))
        case 'Refused':
          return TE.right(answer(ctx.answer.refused(sent.refusal)))
        case 'NotRun':
          return first ? TE.right(alone(sent.sentAt)) : TE.left(chainUnavailable(`${sent.reason}; try again`))
        case 'Mined':
          return sent.batched && !sent.receipt.succeeded && first
            ? failedInBatch(ctx, row, item, sent.receipt, sent.burntItsBound === true, alone(sent.sentAt))
            : recordOwnReceipt(ctx, row, sent.receipt)
      }
    }),
  )
}

/**
 * The payment's item failed in its batch (docs/ARCHITECTURE.md §5.7). Its outcome stands (`reverted`) only when its
 * lone trial fails too (or, for a payer without code, when it burnt its bound). Otherwise its authorization is unused
 * and its row is released: a payer's key (no code) goes alone at once (the batch's call differed from the one verify
 * tried, or its gas did); a payer with code never does, whatever gas its item used (a wallet can burn less than its
 * bound in the block and pass its trial, then burn again alone): it is suspended, and the answer (and its caller's
 * retry) is refused `payer_suspended`, or `contract_payer_gas_budget_spent` once the network's budget is spent.
 */
const failedInBatch = (
  ctx: SettleContext,
  row: Settlement,
  item: SubmissionItem,
  receipt: TransferReceipt,
  burnt: boolean,
  alone: Turn,
): Step<Turn> =>
  pipe(
    ctx.deps.mechanism.retrial(item),
    T.chain(({ wouldSucceed, payerHasCode }) => {
      if (payerHasCode) ctx.deps.penalties?.refuseSending(ctx.key.payer)
      if (!wouldSucceed || (burnt && !payerHasCode)) return recordOwnReceipt(ctx, row, receipt)
      const why = receipt.revertReason ? ` (${receipt.revertReason})` : ''
      const failed = `its item failed in the settler batch ${receipt.txHash}${why} while it succeeds alone`
      const reason = payerHasCode
        ? `${failed}: released, its payer (with code) suspended, never sent alone`
        : `${failed}: sent alone`
      return pipe(
        ctx.deps.journal.markReleased(claimRefOf(row), 'submitted', reason),
        T.chain((released): Step<Turn> =>
          E.isRight(released) && released.right === 'applied'
            ? TE.right(payerHasCode ? answer(ctx.answer.refused(contractPayerRefusal(ctx))) : alone)
            : recordOwnReceipt(ctx, row, receipt),
        ),
      )
    }),
  )

const rowOf = (ctx: SettleContext, row: Settlement): ReceiptRow => ({
  ref: claimRefOf(row),
  payment: row,
  claimedAt: new Date(ctx.startedAt),
})

/**
 * The settle's own receipt recorded (record-receipt.ts) and answered. A success is answered `once`; with nothing to
 * wait for first (`waitFor` not `final`) its write takes the success mark too (`markMined` with the answer id): the
 * mark ours → the success; otherwise (the write failed or was stale, or another answer holds the mark) →
 * `answerSuccess`, which marks or tells. A revert because someone else's copy used the authorization first is their
 * success. The funds moved (or not) whatever the journal says: a failed write is completed by recovery. Its penalties
 * were judged where the receipt came in (evm/submission/group-submission.ts, judge-receipt.ts).
 */
export const recordOwnReceipt = (ctx: SettleContext, row: Settlement, receipt: TransferReceipt): Step<Turn> => {
  const ref = claimRefOf(row)
  const claimedAt = row.createdAt
  const answerId = ctx.waitsForFinal ? undefined : ctx.options.answerId
  return pipe(
    recordReceipt(receiptDeps(ctx), rowOf(ctx, row), receipt, {
      by: 'settle',
      ...(answerId === undefined ? {} : { answerId }),
    }),
    TE.chainW((recorded) => {
      switch (recorded._tag) {
        case 'Mined': {
          const settled = ctx.answer.settled(receipt.txHash, receipt.blockNumber, false, receipt.blockHash, claimedAt)
          const { written } = recorded
          const marked = E.isRight(written) && typeof written.right === 'object' && written.right.successMarked
          return marked ? TE.right(settled) : answerSuccess(ctx, ref.id, settled, 'once')
        }
        case 'SettledElsewhere': {
          const { txHash, blockNumber, blockHash } = recorded.by
          const theirs = ctx.answer.settled(txHash, blockNumber, false, blockHash, claimedAt)
          return answerSuccess(ctx, ref.id, theirs, 'once')
        }
        default:
          return TE.right(
            ctx.answer.refused({
              _tag: 'TransactionReverted',
              txHash: receipt.txHash,
              // Spread: no `reason` key at all when the node gave none (nor an empty one).
              ...(receipt.revertReason ? { reason: receipt.revertReason } : {}),
            }),
          )
      }
    }),
    TE.map(answer),
  )
}

/**
 * A receipt that came after this settle answered 202: a transfer that happened is recorded at once (not answered: the
 * one success is the caller's retry's, answer-success.ts); anything else is left to recovery.
 */
export const recordLatePayment = (ctx: SettleContext, row: Settlement) => (receipt: TransferReceipt) => {
  void recordReceipt(receiptDeps(ctx), rowOf(ctx, row), receipt, { by: 'successes' })()
}

/** What recording a receipt reads and writes: the journal, and the mechanism's word on who else used the payment. */
export const receiptDeps = ({ deps }: SettleContext): ReceiptDeps => ({
  journal: deps.journal,
  ends: deps.mechanism.ends,
})
