import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ClaimRef } from '../../ports/settlement-journal.js'
import type { TransferReceipt } from '../../ports/transfer-submitter.js'
import { recordReceipt, type ReceiptRow } from '../record-receipt.js'
import { answerSuccess, waitsForFinal } from './answer-success.js'
import { answer, type SettleContext, type Step, type Turn } from './settle-context.js'

const rowOf = (ctx: SettleContext, ref: ClaimRef): ReceiptRow => ({ ref, payer: ctx.key.payer, nonce: ctx.key.nonce })

/**
 * The settle's own receipt recorded (record-receipt.ts) and answered. A success is answered `once`; with nothing to
 * wait for first (`waitFor` not `final`) its write takes the success mark too (`markMined` with the answer id): the
 * mark ours → the success; otherwise (the write failed or was stale, or another answer holds the mark) →
 * `answerSuccess`, which marks or tells. A revert because someone else's copy used the authorization first is their
 * success. The funds moved (or not) whatever the journal says: a failed write is completed by recovery. Its penalties
 * were judged where the receipt came in (group-submission.ts, judge-receipt.ts).
 */
export const recordOwnReceipt = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt): Step<Turn> => {
  const answerId = waitsForFinal(ctx) ? undefined : ctx.options.answerId
  return pipe(
    recordReceipt(ctx.deps, rowOf(ctx, ref), receipt, { by: 'settle', ...(answerId === undefined ? {} : { answerId }) }),
    TE.chainW((recorded) => {
      switch (recorded._tag) {
        case 'Mined': {
          const settled = ctx.answer.settled(receipt.txHash, receipt.blockNumber, false)
          const { written } = recorded
          const marked = E.isRight(written) && typeof written.right === 'object' && written.right.successMarked
          return marked ? TE.right(settled) : answerSuccess(ctx, ref.id, settled, 'once')
        }
        case 'SettledElsewhere':
          return answerSuccess(ctx, ref.id, ctx.answer.settled(recorded.by.txHash, recorded.by.blockNumber, false), 'once')
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
export const recordLatePayment = (ctx: SettleContext, ref: ClaimRef) => (receipt: TransferReceipt) => {
  void recordReceipt(ctx.deps, rowOf(ctx, ref), receipt, { by: 'successes' })()
}
