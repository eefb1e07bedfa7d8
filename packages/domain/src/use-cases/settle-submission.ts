import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as O from 'fp-ts/lib/Option.js'
import type { ClaimRef, Settlement } from '../ports/settlement-journal.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import type { SettleOutcome } from './settle-payment.js'
import { answerSuccess } from './answer-success.js'
import { settledElsewhereNote, usedElsewhere } from './used-elsewhere.js'
import type { SettleContext, Step } from './settle-context.js'

/**
 * What follows a successful claim (docs/ARCHITECTURE.md §5.3–5.4, §5.7): sign → record the attempt → broadcast (alone
 * or in a settler batch, the submission queue's choice) → record the receipt. Once broadcast, the answer is the
 * outcome (or Pending), never an infrastructure failure.
 */
export const submitClaimed = (ctx: SettleContext, row: Settlement, executionGas: bigint | undefined): Step<SettleOutcome> => {
  const ref: ClaimRef = { id: row.id, generation: row.generation }
  const { authorization, signature } = ctx.request.payload
  const waitMs = Math.min(ctx.request.requirements.maxTimeoutSeconds * 1000, ctx.deps.policy.receiptTimeoutMs)
  const item = executionGas === undefined ? { authorization, signature } : { authorization, signature, executionGas }
  return pipe(
    () => ctx.deps.submissions.submit({ ref, key: ctx.key, item, waitMs, onLateReceipt: (receipt) => void recordReceipt(ctx, ref, receipt)() }),
    TE.chainW((sent) => (sent._tag === 'Mined' ? recordReceipt(ctx, ref, sent.receipt) : TE.right(ctx.answer.pending(sent.txHash)))),
  )
}

/** The receipt recorded and answered; a revert because someone else's copy used the authorization first is their success. */
const recordReceipt = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt): Step<SettleOutcome> => {
  const { from: payer, nonce } = ctx.request.payload.authorization
  return pipe(
    usedElsewhere(ctx.deps.token, payer, nonce, receipt),
    T.chain(
      O.match(
        () => recordOwnReceipt(ctx, ref, receipt),
        (other) =>
          pipe(
            ctx.deps.journal.markSettledElsewhere(ref, settledElsewhereNote(other, receipt), other),
            T.chain(() => answerSuccess(ctx, ref.id, ctx.answer.settled(other.txHash, other.blockNumber, false), 'once')),
          ),
      ),
    ),
  )
}

const recordOwnReceipt = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt): Step<SettleOutcome> =>
  pipe(
    ctx.deps.journal.markMined(ref, receipt),
    // The funds moved whatever the journal says: a failed write is completed by recovery (and the success, its mark
    // failing too, is answered 202: the caller's retry gets it, answer-success.ts).
    T.chain(() =>
      receipt.succeeded
        ? answerSuccess(ctx, ref.id, ctx.answer.settled(receipt.txHash, receipt.blockNumber, false), 'once')
        : TE.right(
            ctx.answer.refused({
              _tag: 'TransactionReverted',
              txHash: receipt.txHash,
              // Spread: no `reason` key at all when the node gave none (nor an empty one).
              ...(receipt.revertReason ? { reason: receipt.revertReason } : {}),
            }),
          ),
    ),
  )
