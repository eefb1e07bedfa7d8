import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { chainUnavailable, keyRefused } from '../../model/failures.js'
import type { PreparedTransfer, TransferReceipt } from '../ports/transfer-submitter.js'
import { burntItsBound } from '../../penalties/judge-receipt.js'
import { judgeReceipt, reservationId } from '../../penalties/judge-receipt.js'
import { notRunReason, receiptForRow, rowNotRunInBatch } from '../../use-cases/row-receipt.js'
import type { GroupDeps, GroupResults, Submission, SubmissionResult } from './group-types.js'

/** Ends the in-flight gas reservations of a group's payments (docs/ARCHITECTURE.md §5.7). */
export const settleReservations = (deps: GroupDeps, group: ReadonlyArray<Submission>) =>
  group.forEach((s) => deps.penalties?.settleReservation(reservationId(s.ref)))

/**
 * Releases the group's rows: a lone row on its own, a batch's in one statement (all or none; a failure leaves them to
 * recovery, which decides each from the chain). Whether every row was released.
 */
export const releaseAll = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  from: 'claimed' | 'submitted',
  reason: string,
  /**
   * A batch that reverted whole: its block is recorded and watched, a reorg may re-mine it (docs/ARCHITECTURE.md
   * §5.6).
   */
  mined?: TransferReceipt,
): Promise<boolean> => {
  if (group.length === 1) {
    const released = await deps.journal.markReleased(group[0]!.ref, from, reason, mined)()
    return E.isRight(released) && released.right === 'applied'
  }
  const released = await deps.journal.markBatchReleased(
    group.map((s) => s.ref),
    from,
    reason,
    mined,
  )()
  return E.isRight(released) && released.right.length === group.length
}

/**
 * Once broadcast, each answer is its payment's outcome, or Pending: never an infrastructure failure — but for a
 * transaction the node refused, whose rows are released first and only then its nonce handed back (a nonce handed back
 * while a row still names its transaction could be taken by another; unknown, the nonce is kept and the answer is 202).
 * Each payment waits for the receipt as long as its own request allows (§5.4): the shortest wait is the broadcast's,
 * the others wait on as further waiters of the same transaction.
 */
export const broadcast = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  transfer: PreparedTransfer,
): Promise<GroupResults> => {
  const pending: SubmissionResult = E.right({ _tag: 'Pending', txHash: transfer.txHash })
  const sentAt = deps.clock.now().getTime()
  const sent = await deps.submitter.send(transfer, Math.min(...group.map((s) => s.waitMs)))()
  // Uncertain: the node may have the transaction (its answer was lost, or another URL took the same bytes): its
  // receipt is awaited as an unconfirmed one's is, and without one in time the answer is 202 as before.
  if (E.isLeft(sent) && sent.left._tag !== 'SendUncertain') {
    const refusal = sent.left.reason
    if (!(await releaseAll(deps, group, 'submitted', `refused by the node: ${refusal}`))) {
      await deps.submitter.abandon(transfer)()
      return group.map(() => Promise.resolve(pending))
    }
    await deps.submitter.discard(transfer)()
    settleReservations(deps, group)
    const refused = (sent.left.keyRefused ? keyRefused : chainUnavailable)(
      `the node refused the transaction: ${refusal}`,
    )
    return group.map(() => Promise.resolve(E.left(refused)))
  }
  const outcomes = once((receipt: TransferReceipt) => outcomesOf(deps, group, transfer, receipt, sentAt))
  if (E.isRight(sent) && sent.right._tag === 'Mined') {
    const mined = outcomes(sent.right.receipt)
    return group.map((_, index) => mined.then((results) => results[index]!))
  }
  const elapsed = deps.clock.now().getTime() - sentAt
  const longest = Math.max(...group.map((s) => s.waitMs)) - elapsed
  // The whole group's wait: what each payment that stopped waiting earlier is told afterwards.
  const late = (longest > 0 ? deps.submitter.waitForReceipt(transfer, longest)() : Promise.resolve(O.none)).then(
    (receipt) => (O.isSome(receipt) ? outcomes(receipt.value) : undefined),
  )
  const stoppedWaiting = (index: number): SubmissionResult => {
    void late.then((results) => {
      const result = results?.[index]
      if (result === undefined || E.isLeft(result)) return
      if (result.right._tag === 'Mined') group[index]!.onLateReceipt?.(result.right.receipt)
      if (result.right._tag === 'NotRun') group[index]!.onLateRelease?.()
    })
    return pending
  }
  return group.map(async ({ waitMs }, index) => {
    if (waitMs <= elapsed) return stoppedWaiting(index)
    const receipt = await deps.submitter.waitForReceipt(transfer, waitMs - elapsed)()
    return O.isSome(receipt) ? (await outcomes(receipt.value))[index]! : stoppedWaiting(index)
  })
}

/** What a mined transaction means for each payment of its group; a batch that reverted whole releases every row. */
const outcomesOf = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  transfer: PreparedTransfer,
  receipt: TransferReceipt,
  sentAt: number,
): Promise<ReadonlyArray<SubmissionResult>> => {
  const batch = group.length > 1
  const pending: SubmissionResult = E.right({ _tag: 'Pending', txHash: transfer.txHash })
  const itemGasLimit = deps.itemGasLimit ?? 300_000n
  // Whether or not anyone still waits for it (a late receipt too): docs/ARCHITECTURE.md §5.7.
  group.forEach(({ item, ref }, index) =>
    judgeReceipt(
      deps.penalties,
      itemGasLimit,
      {
        payer: item.authorization.from,
        payerHasCode: item.payerHasCode === true,
        ...(batch ? { batchIndex: index } : {}),
      },
      receipt,
      reservationId(ref),
    ),
  )
  if (!batch)
    return [
      E.right({
        _tag: 'Mined',
        receipt: receiptForRow([{ txHash: receipt.txHash }], receipt),
        batched: false,
        sentAt,
      }),
    ]
  const burnt = (index: number) =>
    receipt.items?.some((outcome) => outcome.index === index && burntItsBound(outcome, itemGasLimit)) === true
  // Items the settler did not run (it stopped for gas; an earlier settler reverted whole): nothing of them moved. Their
  // rows alone are released, in one statement, and each goes again alone; the items that ran keep their outcomes.
  // The receipt may be a replacement's (the same call at higher fees, keep-alive.ts): the item is at the same index.
  const attemptOf = (index: number) => [{ txHash: receipt.txHash, batchIndex: index }]
  const notRun = group.filter((_, index) => rowNotRunInBatch(attemptOf(index), receipt))
  const released =
    notRun.length === 0
      ? E.right([])
      : await deps.journal.markBatchReleased(
          notRun.map((s) => s.ref),
          'submitted',
          notRunReason(receipt),
          receipt,
        )()
  return group.map((submission, index): SubmissionResult => {
    if (!notRun.includes(submission))
      return E.right({
        _tag: 'Mined',
        receipt: receiptForRow(attemptOf(index), receipt),
        batched: true,
        sentAt,
        ...(burnt(index) ? { burntItsBound: true as const } : {}),
      })
    // A release that did not answer leaves the row to recovery, which releases it from the same receipt.
    return E.isRight(released) && released.right.includes(submission.ref.id)
      ? E.right({ _tag: 'NotRun', reason: notRunReason(receipt), sentAt })
      : pending
  })
}

/** `f` run once, for the first argument it is given; every call answers that run. */
const once = <A, B>(f: (a: A) => Promise<B>): ((a: A) => Promise<B>) => {
  let run: Promise<B> | undefined
  return (a) => (run ??= f(a))
}
