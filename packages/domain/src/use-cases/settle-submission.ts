import { pipe } from 'fp-ts/lib/function.js'
import * as E from 'fp-ts/lib/Either.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as O from 'fp-ts/lib/Option.js'
import type { ClaimRef, Settlement } from '../ports/settlement-journal.js'
import { chainUnavailable, type SettleRefusal } from '../model/failures.js'
import type { Address } from '../model/payment.js'
import { inFlightKey } from '../ports/payer-exposure.js'
import type { BatchItem, TransferReceipt } from '../ports/transfer-submitter.js'
import type { SettleOutcome } from './settle-payment.js'
import { sendingRefusal } from './sending-refusal.js'
import { answerSuccess, recordOwnSuccess } from './answer-success.js'
import { settledElsewhereNote, usedElsewhere } from './used-elsewhere.js'
import type { SettleContext, Step } from './settle-context.js'

/** The shortest wait a request may ask (`maxTimeoutSeconds` 1): what a payment sent again past its deadline still gets to broadcast. */
const MIN_WAIT_MS = 1000

/**
 * What follows a successful claim (docs/ARCHITECTURE.md §5.3–5.4, §5.7): sign → record the attempt → broadcast (alone
 * or in a settler batch, the submission queue's choice) → record the receipt. Once broadcast, the answer is the
 * outcome (or Pending), never an infrastructure failure. `resendAlone` (absent: this goes alone already) claims the
 * payment again and sends it in its own transaction: for an item the settler did not run (its row released by the
 * group), and for an item that failed in its batch while its lone trial succeeds (released here, never `reverted`).
 * It is given the request's deadline (clock ms): its first broadcast plus its wait, min(`maxTimeoutSeconds`, receipt
 * timeout); the lone transaction waits what is left of it (at least `MIN_WAIT_MS`), then the answer is 202.
 */
export const submitClaimed = (
  ctx: SettleContext,
  row: Settlement,
  item: BatchItem,
  resendAlone?: (deadline: number) => Step<SettleOutcome>,
  deadline?: number,
): Step<SettleOutcome> => {
  const ref: ClaimRef = { id: row.id, generation: row.generation }
  const fullWaitMs = Math.min(ctx.request.requirements.maxTimeoutSeconds * 1000, ctx.deps.policy.receiptTimeoutMs)
  const waitMs = deadline === undefined ? fullWaitMs : Math.max(MIN_WAIT_MS, deadline - ctx.deps.clock.now().getTime())
  const again = resendAlone && ((sentAt: number) => () => resendAlone(deadline ?? sentAt + fullWaitMs))
  return pipe(
    () =>
      ctx.deps.submissions.submit({
        ref,
        key: ctx.key,
        item,
        waitMs,
        onLateReceipt: recordLatePayment(ctx, ref),
        onLateRelease: () => ctx.deps.exposure.finished(inFlightKey(ctx.key.payer, ctx.key.nonce)),
        ...(again ? {} : { alone: true }),
      }),
    TE.chainW((sent) => {
      switch (sent._tag) {
        case 'Pending':
          return TE.right(ctx.answer.pending(sent.txHash))
        case 'Refused':
          return TE.right(ctx.answer.refused(sent.refusal))
        case 'NotRun':
          return again ? again(sent.sentAt)() : TE.left(chainUnavailable(`${sent.reason}; try again`))
        case 'Mined':
          return sent.batched && !sent.receipt.succeeded && again
            ? failedInBatch(ctx, ref, item, sent.receipt, sent.burntItsBound === true, again(sent.sentAt))
            : recordReceipt(ctx, ref, sent.receipt, item, sent.batched)
      }
    }),
  )
}

/**
 * A receipt that came after this settle answered 202: a transfer that happened is recorded at once (not answered: the
 * one success is the caller's retry's, answer-success.ts); anything else is left to recovery.
 */
const recordLatePayment = (ctx: SettleContext, ref: ClaimRef) => (receipt: TransferReceipt) => {
  if (receipt.succeeded) void ctx.deps.journal.markMined(ref, receipt)()
}

/**
 * The payment's item failed in its batch (docs/ARCHITECTURE.md §5.7). Its outcome stands (`reverted`) only when its
 * lone trial fails too (or, for a payer without code, when it burnt its bound). Otherwise its authorization is unused
 * and its row is released: a payer's key (no code) goes alone at once (the batch's call differed from the one verify
 * tried, or its gas did); a payer with code never does, whatever gas its item used (a wallet can burn less than its
 * bound in the block and pass its trial, then burn again alone): it is suspended, and the answer (and its caller's
 * retry) is refused `payer_suspended`, or `contract_payer_gas_budget_spent` once the network's budget is spent.
 */
const failedInBatch = (ctx: SettleContext, ref: ClaimRef, item: BatchItem, receipt: TransferReceipt, burnt: boolean, resendAlone: () => Step<SettleOutcome>): Step<SettleOutcome> =>
  pipe(
    ctx.deps.token.trialPayment(item.authorization, item.signature),
    T.chain((trial) => {
      const wouldSucceed = E.isRight(trial) && !trial.right.authorizationUsed && trial.right.transfer._tag === 'WouldSucceed'
      // The chain's word too: a payer may have gained code (EIP-7702) since verify.
      const payerHasCode = item.payerHasCode === true || (E.isRight(trial) && trial.right.payerHasCode === true)
      const payer = item.authorization.from
      if (payerHasCode) ctx.deps.penalties?.refuseSending(payer)
      if (!wouldSucceed || (burnt && !payerHasCode)) return recordReceipt(ctx, ref, receipt, item, true)
      const failed = `its item failed in the settler batch ${receipt.txHash}${receipt.revertReason ? ` (${receipt.revertReason})` : ''} while it succeeds alone`
      const reason = payerHasCode ? `${failed}: released, its payer (with code) suspended, never sent alone` : `${failed}: sent alone`
      return pipe(
        ctx.deps.journal.markReleased(ref, 'submitted', reason),
        T.chain((released) =>
          E.isRight(released) && released.right === 'applied'
            ? payerHasCode
              ? TE.right(ctx.answer.refused(contractPayerRefusal(ctx, payer)))
              : resendAlone()
            : recordReceipt(ctx, ref, receipt, item, true),
        ),
      )
    }),
  )

/** Why a payer with code whose item failed in a batch is not sent again: the spent budget first, else its suspension. */
const contractPayerRefusal = (ctx: SettleContext, payer: Address): SettleRefusal => {
  const budgetSpent = ctx.deps.penalties?.contractPayersRefusedUntil()
  if (budgetSpent !== undefined) return { _tag: 'ContractPayerGasBudgetSpent', payer, until: budgetSpent }
  return sendingRefusal(ctx, true) ?? { _tag: 'PayerSuspended', payer, until: ctx.deps.clock.now() }
}

/** The receipt recorded and answered; a revert because someone else's copy used the authorization first is their success. */
const recordReceipt = (ctx: SettleContext, ref: ClaimRef, receipt: TransferReceipt, _item: BatchItem, _batched: boolean): Step<SettleOutcome> => {
  const { from: payer, nonce } = ctx.request.payload.authorization
  return pipe(
    usedElsewhere(ctx.deps.token, payer, nonce, receipt),
    T.chain(
      O.match(
        // Its penalties were judged where the receipt came in (group-submission.ts, judge-receipt.ts).
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
  receipt.succeeded
    ? recordOwnSuccess(ctx, ref, receipt)
    : pipe(
        ctx.deps.journal.markMined(ref, receipt),
        // The revert stands whatever the journal says: a failed write is completed by recovery.
        T.chain(() =>
          TE.right(
            ctx.answer.refused({
              _tag: 'TransactionReverted',
              txHash: receipt.txHash,
              // Spread: no `reason` key at all when the node gave none (nor an empty one).
              ...(receipt.revertReason ? { reason: receipt.revertReason } : {}),
            }),
          ),
        ),
      )
