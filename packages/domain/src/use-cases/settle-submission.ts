import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { chainUnavailable, journalUnavailable } from '../model/failures.js'
import type { ClaimRef, Settlement } from '../ports/settlement-journal.js'
import type { PreparedTransfer, TransferReceipt } from '../ports/transfer-submitter.js'
import type { SettleOutcome } from './settle-payment.js'
import type { SettleContext, Step } from './settle-context.js'

/**
 * What follows a successful claim (docs/ARCHITECTURE.md §5.3–5.4): sign → record the attempt → broadcast →
 * record the receipt. Once broadcast, the answer is the outcome (or Pending), never an infrastructure failure.
 */
export const submitClaimed = (ctx: SettleContext, row: Settlement): Step<SettleOutcome> => {
  const ref: ClaimRef = { id: row.id, generation: row.generation }
  const { authorization, signature } = ctx.request.payload
  return pipe(
    ctx.deps.submitter.prepare(authorization, signature),
    TE.orElseW((down) =>
      pipe(
        ctx.deps.journal.markReleased(ref, 'claimed', down.reason),
        T.map(() => E.left(down)),
      ),
    ),
    TE.chainW((prepared) => recordAttempt(ctx, ref, prepared)),
    TE.chainW((recorded) => broadcast(ctx, ref, recorded)),
  )
}

/** The attempt is stored before it is broadcast; a failed write broadcasts nothing and gives the nonce back. */
const recordAttempt = (ctx: SettleContext, ref: ClaimRef, prepared: PreparedTransfer): Step<PreparedTransfer> =>
  pipe(
    ctx.deps.journal.markSubmitted(ref, { ...prepared, sentAt: ctx.deps.clock.now() }),
    TE.chainW((transition) =>
      transition === 'applied'
        ? TE.right(prepared)
        : TE.left(journalUnavailable('the claim was released before its transaction was recorded')),
    ),
    TE.orElseW((failure) =>
      pipe(
        ctx.deps.submitter.discard(prepared),
        T.map(() => E.left(failure)),
      ),
    ),
  )

const broadcast = (ctx: SettleContext, ref: ClaimRef, prepared: PreparedTransfer): Step<SettleOutcome> => {
  const { deps, answer } = ctx
  const waitMs = Math.min(ctx.request.requirements.maxTimeoutSeconds * 1000, deps.policy.receiptTimeoutMs)
  return pipe(
    deps.submitter.send(prepared, waitMs),
    TE.foldW(
      (failure) =>
        failure._tag === 'SendUncertain'
          ? TE.right(answer.pending(prepared.txHash))
          : pipe(
              deps.submitter.discard(prepared),
              T.chain(() => deps.journal.markReleased(ref, 'submitted', `refused by the node: ${failure.reason}`)),
              T.map(() => E.left(chainUnavailable(`the node refused the transaction: ${failure.reason}`))),
            ),
      (outcome) => (outcome._tag === 'Mined' ? recordReceipt(ctx, ref, outcome.receipt) : TE.right(answer.pending(prepared.txHash))),
    ),
  )
}

const recordReceipt = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt): Step<SettleOutcome> =>
  pipe(
    ctx.deps.journal.markMined(ref, receipt),
    // The funds moved whatever the journal says: a failed write is completed by recovery.
    T.map(() =>
      E.right(
        receipt.succeeded
          ? ctx.answer.settled(receipt.txHash, receipt.blockNumber, false)
          : ctx.answer.refused({
              _tag: 'TransactionReverted',
              txHash: receipt.txHash,
              // Spread: no `reason` key at all when the node gave none (nor an empty one).
              ...(receipt.revertReason ? { reason: receipt.revertReason } : {}),
            }),
      ),
    ),
  )
