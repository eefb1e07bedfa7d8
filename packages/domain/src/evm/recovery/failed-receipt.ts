import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import { judgeReceipt, reservationId } from '../../penalties/judge-receipt.js'
import type { ClaimRef, Transition } from '../../ports/settlement-journal.js'
import type { EvmAttempt as Attempt, EvmSettlement as Settlement } from '../model/evm-row.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import { burntItsBound } from '../../penalties/judge-receipt.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import { authorizationOf } from '../model/evm-row.js'

/**
 * The settler's per-item bound when recovery is not told it (BatchSettler's deployment default, as
 * group-submission.ts).
 */
const DEFAULT_ITEM_GAS_LIMIT = 300_000n

const applied =
  (outcome: RowOutcome) =>
  (t: Transition): RowOutcome =>
    t === 'applied' ? outcome : 'stale'
const batchIndexOf = (attempts: ReadonlyArray<Attempt>, mined: TransferReceipt): number | undefined =>
  attempts.find((a) => a.txHash.toLowerCase() === mined.txHash.toLowerCase())?.batchIndex

/** What recovery does with a row whose transaction (or its item of a settler batch) was mined and failed. */
export const failedReceipt = (deps: RecoveryDeps) => {
  const itemGasLimit = deps.itemGasLimit ?? DEFAULT_ITEM_GAS_LIMIT

  /**
   * A failed receipt's penalties, judged before the row is recorded (docs/ARCHITECTURE.md §5.7, judge-receipt.ts): a
   * settle that answered 202 before it escapes none. Whether the payer has code is read from the chain (the trial);
   * unread, the row waits for the next pass; unknown counts as code.
   */
  const judgePenalties = (
    row: Settlement,
    attempts: ReadonlyArray<Attempt>,
    mined: TransferReceipt,
  ): TE.TaskEither<InfrastructureFailure, void> =>
    deps.penalties === undefined
      ? TE.right(undefined)
      : pipe(
          deps.token.trialPayment(authorizationOf(row), row.signature),
          TE.map((trial) => {
            const batchIndex = batchIndexOf(attempts, mined)
            const payment = {
              payer: row.payer,
              payerHasCode: trial.payerHasCode !== false,
              ...(batchIndex === undefined ? {} : { batchIndex }),
            }
            judgeReceipt(deps.penalties, itemGasLimit, payment, mined, reservationId(row))
          }),
        )

  /**
   * A failed item of a settler batch whose lone trial now succeeds, its authorization unused (the batch's call differed
   * from the one verify tried, or its gas did): released with the batch's block recorded (a reorg may re-mine it), for
   * the caller's retry; never `reverted` (docs/ARCHITECTURE.md §5.7). A payer with code (as the trial reads it now) is
   * suspended whatever gas its item used, so that retry is refused `payer_suspended` (never sent alone, where it could
   * burn again); a payer without code whose item burnt its bound stays `reverted`.
   */
  const failedItemAloneOrReverted = (
    row: Settlement,
    ref: ClaimRef,
    attempts: ReadonlyArray<Attempt>,
    mined: TransferReceipt,
    receipt: TransferReceipt,
  ): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
    const reverted = pipe(deps.journal.markMined(ref, receipt), TE.map(applied('reverted')))
    const index = batchIndexOf(attempts, mined)
    const item = index === undefined ? undefined : mined.items?.find((i) => i.index === index)
    if (item === undefined) return reverted
    const burnt = burntItsBound(item, itemGasLimit)
    return pipe(
      deps.token.trialPayment(authorizationOf(row), row.signature),
      T.chain((trial) => {
        const payerHasCode = E.isRight(trial) && trial.right.payerHasCode === true
        if (payerHasCode) deps.penalties?.refuseSending(row.payer)
        const wouldSucceed =
          E.isRight(trial) && !trial.right.authorizationUsed && trial.right.transfer._tag === 'WouldSucceed'
        if (!wouldSucceed || (burnt && !payerHasCode)) return reverted
        const then = payerHasCode
          ? "released for the caller's retry, its payer (with code) suspended"
          : "released for the caller's retry"
        return pipe(
          deps.journal.markReleased(
            ref,
            'submitted',
            `its item failed in the settler batch ${mined.txHash}` +
              (receipt.revertReason ? ` (${receipt.revertReason})` : '') +
              ` while it succeeds alone: ${then}`,
            mined,
          ),
          TE.map(applied('released-failed-in-batch')),
        )
      }),
    )
  }

  return { judgePenalties, failedItemAloneOrReverted }
}
