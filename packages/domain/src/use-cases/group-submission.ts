import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { chainUnavailable, journalUnavailable, keyRefused, type InfrastructureFailure, type JournalUnavailable, type SettleRefusal } from '../model/failures.js'
import type { Hex } from '../model/payment.js'
import type { Clock } from '../ports/clock.js'
import type { ClaimRef, Settlement, SettlementJournal, SettlementKey, Transition } from '../ports/settlement-journal.js'
import type { BatchItem, PreparedTransfer, TransferReceipt, TransferSubmitter } from '../ports/transfer-submitter.js'
import type { PenaltyBox } from '../penalties/penalty-box.js'
import { burntItsBound } from './batch-penalties.js'
import { judgeReceipt, reservationId } from '../penalties/judge-receipt.js'
import { notRunReason, receiptForRow, rowNotRunInBatch } from './row-receipt.js'

/** One claimed payment waiting for its transaction. */
export interface Submission {
  readonly ref: ClaimRef
  readonly key: SettlementKey
  readonly item: BatchItem
  /** How long its settle may wait for the receipt. */
  readonly waitMs: number
  /**
   * Its receipt, when it comes after the settle stopped waiting (answered 202) but while another payment of its batch
   * still waits: recorded then, rather than left to recovery.
   */
  readonly onLateReceipt?: (receipt: TransferReceipt) => void
  /**
   * Its row released after its settle stopped waiting (its batch did not run it): nothing of it can move any more, so
   * what its 202 kept of the payer's balance (rule 9) ends, and the caller's retry may settle it anew.
   */
  readonly onLateRelease?: () => void
  /** It goes in its own transaction, never in a batch (a payment a batch did not run, sent again). */
  readonly alone?: boolean
}

/** What became of a payment's transaction once broadcast: its own receipt (its item's, in a batch), or not yet. */
export type Sent =
  /**
   * `batched`: the receipt is the payment's item's in a settler batch; `sentAt`: when it was broadcast (clock ms);
   * `burntItsBound`: its failed item used ≥ 31/32 of the item bound (it ran out of gas: never sent again alone,
   * docs/ARCHITECTURE.md §5.7).
   */
  | { readonly _tag: 'Mined'; readonly receipt: TransferReceipt; readonly batched: boolean; readonly sentAt: number; readonly burntItsBound?: true }
  | { readonly _tag: 'Pending'; readonly txHash: Hex }
  /** The settler did not run its item (docs/ARCHITECTURE.md §5.7): the row is released, nothing of it moved. */
  | { readonly _tag: 'NotRun'; readonly reason: string; readonly sentAt: number }
  /** Not sent: its payer has code and the gas in flight for such payers is spent (penalty-box.ts `reserve`); the row is released. */
  | { readonly _tag: 'Refused'; readonly refusal: SettleRefusal }

export type SubmissionResult = E.Either<InfrastructureFailure, Sent>

export interface GroupDeps {
  readonly journal: SettlementJournal
  readonly submitter: TransferSubmitter
  readonly clock: Clock
  /** Told what each receipt's failed payments of payers with code cost (judge-receipt.ts) [none]. */
  readonly penalties?: PenaltyBox
  /** The settler's per-item bound, for `penalties` [300 000]. */
  readonly itemGasLimit?: bigint
}

/** What recording a group's transaction came to: only `recorded` may be broadcast. */
type Recorded =
  | { readonly _tag: 'Recorded' }
  /** The write may have happened: nothing broadcast, the nonce not handed out again; recovery finishes it. */
  | { readonly _tag: 'Unknown' }
  /** Nothing written: nothing broadcast, the nonce given back. */
  | { readonly _tag: 'NotRecorded'; readonly failure: InfrastructureFailure }
  /** A batch one of whose rows moved on: each payment goes again on its own. */
  | { readonly _tag: 'BatchStale' }

/** Each payment's own answer, in the group's order: they may come at different times (§5.4, each its own wait). */
export type GroupResults = ReadonlyArray<Promise<SubmissionResult>>

/**
 * docs/ARCHITECTURE.md §5.3 and §5.7: one transaction for a group of claimed payments — a lone transfer for one, a
 * settler batch for several — signed, recorded on every row before it is broadcast, then broadcast. `onRecorded` is
 * called once the journal has answered (the next group may then be signed). Answers each payment's result, in order.
 */
export const submitGroup = async (deps: GroupDeps, group: ReadonlyArray<Submission>, onRecorded: () => void): Promise<GroupResults> => {
  const everyone = (result: SubmissionResult): GroupResults => group.map(() => Promise.resolve(result))
  const prepared = await prepare(deps, group)()
  if (E.isLeft(prepared)) {
    settleReservations(deps, group)
    onRecorded()
    await releaseAll(deps, group, 'claimed', prepared.left.reason)
    return everyone(E.left(prepared.left))
  }
  const transfer = prepared.right
  const refused = reserveInFlightGas(deps, group, transfer)
  if (refused !== undefined) {
    onRecorded()
    await deps.submitter.discard(transfer)()
    await releaseAll(deps, group, 'claimed', `not sent: ${refused._tag === 'PayerSuspended' ? 'its payer has payments with code in flight' : 'the gas budget for payers with code is spent (with what is in flight)'}`)
    return everyone(E.right({ _tag: 'Refused', refusal: refused }))
  }
  let recorded: Recorded
  try {
    recorded = await record(deps, group, transfer)
  } finally {
    onRecorded()
  }
  switch (recorded._tag) {
    case 'Unknown':
      return everyone(E.right({ _tag: 'Pending', txHash: transfer.txHash }))
    case 'NotRecorded':
      settleReservations(deps, group)
      return everyone(E.left(recorded.failure))
    case 'BatchStale':
      return (await Promise.all(group.map((one) => submitGroup(deps, [one], () => {})))).flat()
    case 'Recorded':
      return broadcast(deps, group, transfer)
  }
}

/**
 * A lone transaction of a payer with code takes its gas limit out of the lone budget while in flight (a batch's items
 * took their bound when the queue grouped them, submission-queue.ts): docs/ARCHITECTURE.md §5.7. A refusal, when spent.
 */
const reserveInFlightGas = (deps: GroupDeps, group: ReadonlyArray<Submission>, transfer: PreparedTransfer): SettleRefusal | undefined => {
  const { penalties } = deps
  const lone = group[0]!
  if (penalties === undefined || group.length > 1 || lone.item.payerHasCode !== true) return undefined
  const payer = lone.item.authorization.from
  const refused = penalties.reserve(reservationId(lone.ref), payer, transfer.gasLimit ?? LONE_GAS_IF_UNKNOWN, true)
  if (refused === undefined) return undefined
  return refused._tag === 'BudgetSpent' ? { _tag: 'ContractPayerGasBudgetSpent', payer, until: refused.until } : { _tag: 'PayerSuspended', payer, until: refused.until }
}

/** What a lone transaction of a payer with code is reserved when its submitter does not say its gas limit. */
const LONE_GAS_IF_UNKNOWN = 1_300_000n

const settleReservations = (deps: GroupDeps, group: ReadonlyArray<Submission>) => group.forEach((s) => deps.penalties?.settleReservation(reservationId(s.ref)))

const prepare = ({ submitter }: GroupDeps, group: ReadonlyArray<Submission>) => {
  if (group.length === 1 || submitter.prepareBatch === undefined) {
    const { authorization, signature, executionGas, payerHasCode, trialGasCap } = group[0]!.item
    return submitter.prepare(authorization, signature, executionGas, payerHasCode === true ? (trialGasCap === undefined ? {} : { trialGasCap }) : undefined)
  }
  return submitter.prepareBatch(group.map((s) => s.item))
}

const record = async (deps: GroupDeps, group: ReadonlyArray<Submission>, transfer: PreparedTransfer): Promise<Recorded> => {
  const attempt = { ...transfer, sentAt: deps.clock.now() }
  const batch = group.length > 1
  const written = batch ? await deps.journal.markBatchSubmitted(group.map((s) => s.ref), attempt)() : await deps.journal.markSubmitted(group[0]!.ref, attempt)()
  if (E.isRight(written)) {
    if (written.right === 'applied') return { _tag: 'Recorded' }
    await deps.submitter.discard(transfer)()
    return batch ? { _tag: 'BatchStale' } : { _tag: 'NotRecorded', failure: journalUnavailable('the claim was released before its transaction was recorded') }
  }
  if (written.left.nothingWritten) return nothingRecorded(deps, transfer, written.left)
  return fenceUncertainWrite(deps, group, transfer, written.left)
}

const nothingRecorded = async (deps: GroupDeps, transfer: PreparedTransfer, failure: InfrastructureFailure): Promise<Recorded> => {
  await deps.submitter.discard(transfer)()
  return { _tag: 'NotRecorded', failure }
}

/**
 * The write did not answer (a timeout, a connection lost, perhaps after its commit): release each claim, guarded.
 * All applied: the attempt is not stored and now never will be (503). All stale: the rows moved on, and if they hold
 * our attempt (the write committed: it stores all rows of a batch or none) it is broadcast as if the write had
 * answered. Some of each: the write cannot have committed. The journal still away: nobody knows, so the answer is 202
 * with the hash (do not pay again; recovery broadcasts a stored attempt or releases the claim) and the nonce is not
 * handed out again from memory.
 */
const fenceUncertainWrite = async (deps: GroupDeps, group: ReadonlyArray<Submission>, transfer: PreparedTransfer, failure: JournalUnavailable): Promise<Recorded> => {
  const { journal } = deps
  const fences: Transition[] = []
  for (const { ref } of group) {
    const fenced = await journal.markReleased(ref, 'claimed', `its attempt's write did not answer: ${failure.reason}`)()
    // One release applied already proves the write did not commit (it stores all rows or none).
    if (E.isLeft(fenced)) return fences.includes('applied') ? nothingRecorded(deps, transfer, failure) : abandon(deps, transfer)
    fences.push(fenced.right)
  }
  if (fences.some((t) => t === 'applied')) return nothingRecorded(deps, transfer, failure)
  const first = group[0]!
  const row = await journal.findByKey(first.key)()
  if (E.isLeft(row)) return abandon(deps, transfer)
  const holdsOurAttempt = (r: Settlement) =>
    r.generation === first.ref.generation && r.state === 'submitted' && r.attempts.some((a) => a.txHash === transfer.txHash)
  if (row.right._tag === 'Some' && holdsOurAttempt(row.right.value)) return { _tag: 'Recorded' }
  return nothingRecorded(deps, transfer, failure)
}

const abandon = async (deps: GroupDeps, transfer: PreparedTransfer): Promise<Recorded> => {
  await deps.submitter.abandon(transfer)()
  return { _tag: 'Unknown' }
}

/**
 * Releases the group's rows: a lone row on its own, a batch's in one statement (all or none; a failure leaves them to
 * recovery, which decides each from the chain). Whether every row was released.
 */
const releaseAll = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  from: 'claimed' | 'submitted',
  reason: string,
  /** A batch that reverted whole: its block is recorded and watched, a reorg may re-mine it (docs/ARCHITECTURE.md §5.6). */
  mined?: TransferReceipt,
): Promise<boolean> => {
  if (group.length === 1) {
    const released = await deps.journal.markReleased(group[0]!.ref, from, reason, mined)()
    return E.isRight(released) && released.right === 'applied'
  }
  const released = await deps.journal.markBatchReleased(group.map((s) => s.ref), from, reason, mined)()
  return E.isRight(released) && released.right.length === group.length
}

/**
 * Once broadcast, each answer is its payment's outcome, or Pending: never an infrastructure failure — but for a
 * transaction the node refused, whose rows are released first and only then its nonce handed back (a nonce handed back
 * while a row still names its transaction could be taken by another; unknown, the nonce is kept and the answer is 202).
 * Each payment waits for the receipt as long as its own request allows (§5.4): the shortest wait is the broadcast's,
 * the others wait on as further waiters of the same transaction.
 */
const broadcast = async (deps: GroupDeps, group: ReadonlyArray<Submission>, transfer: PreparedTransfer): Promise<GroupResults> => {
  const pending: SubmissionResult = E.right({ _tag: 'Pending', txHash: transfer.txHash })
  const sentAt = deps.clock.now().getTime()
  const sent = await deps.submitter.send(transfer, Math.min(...group.map((s) => s.waitMs)))()
  if (E.isLeft(sent)) {
    if (sent.left._tag === 'SendUncertain') return group.map(() => Promise.resolve(pending))
    const refusal = sent.left.reason
    if (!(await releaseAll(deps, group, 'submitted', `refused by the node: ${refusal}`))) {
      await deps.submitter.abandon(transfer)()
      return group.map(() => Promise.resolve(pending))
    }
    await deps.submitter.discard(transfer)()
    settleReservations(deps, group)
    const refused = (sent.left.keyRefused ? keyRefused : chainUnavailable)(`the node refused the transaction: ${refusal}`)
    return group.map(() => Promise.resolve(E.left(refused)))
  }
  const outcomes = once((receipt: TransferReceipt) => outcomesOf(deps, group, transfer, receipt, sentAt))
  if (sent.right._tag === 'Mined') {
    const mined = outcomes(sent.right.receipt)
    return group.map((_, index) => mined.then((results) => results[index]!))
  }
  const elapsed = deps.clock.now().getTime() - sentAt
  const longest = Math.max(...group.map((s) => s.waitMs)) - elapsed
  // The whole group's wait: what each payment that stopped waiting earlier is told afterwards.
  const late = (longest > 0 ? deps.submitter.waitForReceipt(transfer, longest)() : Promise.resolve(O.none)).then((receipt) =>
    O.isSome(receipt) ? outcomes(receipt.value) : undefined,
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
    judgeReceipt(deps.penalties, itemGasLimit, { payer: item.authorization.from, payerHasCode: item.payerHasCode === true, ...(batch ? { batchIndex: index } : {}) }, receipt, reservationId(ref)),
  )
  if (!batch) return [E.right({ _tag: 'Mined', receipt: receiptForRow([{ txHash: transfer.txHash }], receipt), batched: false, sentAt })]
  const burnt = (index: number) => receipt.items?.some((outcome) => outcome.index === index && burntItsBound(outcome, itemGasLimit)) === true
  // Items the settler did not run (it stopped for gas; an earlier settler reverted whole): nothing of them moved. Their
  // rows alone are released, in one statement, and each goes again alone; the items that ran keep their outcomes.
  const attemptOf = (index: number) => [{ txHash: transfer.txHash, batchIndex: index }]
  const notRun = group.filter((_, index) => rowNotRunInBatch(attemptOf(index), receipt))
  const released = notRun.length === 0 ? E.right([]) : await deps.journal.markBatchReleased(notRun.map((s) => s.ref), 'submitted', notRunReason(receipt), receipt)()
  return group.map((submission, index): SubmissionResult => {
    if (!notRun.includes(submission))
      return E.right({ _tag: 'Mined', receipt: receiptForRow(attemptOf(index), receipt), batched: true, sentAt, ...(burnt(index) ? { burntItsBound: true as const } : {}) })
    // A release that did not answer leaves the row to recovery, which releases it from the same receipt.
    return E.isRight(released) && released.right.includes(submission.ref.id) ? E.right({ _tag: 'NotRun', reason: notRunReason(receipt), sentAt }) : pending
  })
}

/** `f` run once, for the first argument it is given; every call answers that run. */
const once = <A, B>(f: (a: A) => Promise<B>): ((a: A) => Promise<B>) => {
  let run: Promise<B> | undefined
  return (a) => (run ??= f(a))
}
