import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as O from 'fp-ts/lib/Option.js'
import { chainUnavailable, journalUnavailable, type InfrastructureFailure, type JournalUnavailable } from '../model/failures.js'
import type { ClaimRef, Settlement } from '../ports/settlement-journal.js'
import type { PreparedTransfer, TransferReceipt } from '../ports/transfer-submitter.js'
import type { SettleOutcome } from './settle-payment.js'
import { settledElsewhereNote, usedElsewhere } from './used-elsewhere.js'
import type { SettleContext, Step } from './settle-context.js'

/**
 * What follows a successful claim (docs/ARCHITECTURE.md §5.3–5.4): sign → record the attempt → broadcast →
 * record the receipt. Once broadcast, the answer is the outcome (or Pending), never an infrastructure failure.
 */
export const submitClaimed = (ctx: SettleContext, row: Settlement, executionGas: bigint | undefined): Step<SettleOutcome> => {
  const ref: ClaimRef = { id: row.id, generation: row.generation }
  const { authorization, signature } = ctx.request.payload
  return pipe(
    ctx.deps.submitter.prepare(authorization, signature, executionGas),
    TE.orElseW((down) =>
      pipe(
        ctx.deps.journal.markReleased(ref, 'claimed', down.reason),
        T.map(() => E.left(down)),
      ),
    ),
    TE.chainW((prepared) =>
      pipe(
        recordAttempt(ctx, ref, prepared),
        TE.chainW((record) => (record === 'recorded' ? broadcast(ctx, ref, prepared) : TE.right(ctx.answer.pending(prepared.txHash)))),
      ),
    ),
  )
}

/** Whether the attempt is in the journal: only then may it be broadcast. */
type AttemptRecord = 'recorded' | 'unknown'

/**
 * The attempt is stored before it is broadcast (docs/ARCHITECTURE.md §5.3). A write refused or released broadcasts
 * nothing and gives the nonce back; a write whose outcome is unknown is settled by `fenceUncertainWrite`.
 */
const recordAttempt = (ctx: SettleContext, ref: ClaimRef, prepared: PreparedTransfer): Step<AttemptRecord> =>
  pipe(
    ctx.deps.journal.markSubmitted(ref, { ...prepared, sentAt: ctx.deps.clock.now() }),
    TE.foldW(
      (failure) => (failure.nothingWritten ? nothingRecorded(ctx, prepared, failure) : fenceUncertainWrite(ctx, ref, prepared, failure)),
      (transition) =>
        transition === 'applied'
          ? TE.right<InfrastructureFailure, AttemptRecord>('recorded')
          : nothingRecorded(ctx, prepared, journalUnavailable('the claim was released before its transaction was recorded')),
    ),
  )

const nothingRecorded = (ctx: SettleContext, prepared: PreparedTransfer, failure: InfrastructureFailure): Step<AttemptRecord> =>
  pipe(
    ctx.deps.submitter.discard(prepared),
    T.map(() => E.left(failure)),
  )

/**
 * The write did not answer (a timeout, a connection lost, perhaps after its commit): release the claim, guarded. Applied:
 * the attempt is not stored and now never will be, so nothing happened (503). Stale: the row moved on, and holds our
 * attempt → it is broadcast as if the write had answered. The journal still away: nobody knows, so the answer is 202
 * with the hash (do not pay again; recovery broadcasts a stored attempt or releases the claim) and the nonce is not
 * handed out again from memory.
 */
const fenceUncertainWrite = (ctx: SettleContext, ref: ClaimRef, prepared: PreparedTransfer, failure: JournalUnavailable): Step<AttemptRecord> => {
  const { journal, submitter } = ctx.deps
  const holdsOurAttempt = (row: Settlement) =>
    row.generation === ref.generation && row.state === 'submitted' && row.attempts.some((a) => a.txHash === prepared.txHash)
  return pipe(
    journal.markReleased(ref, 'claimed', `its attempt's write did not answer: ${failure.reason}`),
    TE.chainW((fenced) => (fenced === 'applied' ? TE.right(false) : pipe(journal.findByKey(ctx.key), TE.map(O.exists(holdsOurAttempt))))),
    T.chain(
      E.match(
        () =>
          pipe(
            submitter.abandon(prepared),
            T.map(() => E.right<InfrastructureFailure, AttemptRecord>('unknown')),
          ),
        (recorded) => (recorded ? TE.right<InfrastructureFailure, AttemptRecord>('recorded') : nothingRecorded(ctx, prepared, failure)),
      ),
    ),
  )
}

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
            T.map(() => E.right(ctx.answer.settled(other.txHash, other.blockNumber, false))),
          ),
      ),
    ),
  )
}

const recordOwnReceipt = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt): Step<SettleOutcome> =>
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
