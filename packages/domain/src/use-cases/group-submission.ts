import * as E from 'fp-ts/lib/Either.js'
import { chainUnavailable, journalUnavailable, type InfrastructureFailure, type JournalUnavailable } from '../model/failures.js'
import type { Hex } from '../model/payment.js'
import type { Clock } from '../ports/clock.js'
import type { ClaimRef, Settlement, SettlementJournal, SettlementKey, Transition } from '../ports/settlement-journal.js'
import type { BatchItem, PreparedTransfer, TransferReceipt, TransferSubmitter } from '../ports/transfer-submitter.js'
import type { PenaltyBox } from '../penalties/penalty-box.js'
import { noteBatchOutcomes } from './batch-penalties.js'
import { notRunReason, receiptForRow, rowNotRunInBatch } from './row-receipt.js'

/** One claimed payment waiting for its transaction. */
export interface Submission {
  readonly ref: ClaimRef
  readonly key: SettlementKey
  readonly item: BatchItem
  /** How long its settle may wait for the receipt. */
  readonly waitMs: number
  /** It goes in its own transaction, never in a batch (a payment a batch did not run, sent again). */
  readonly alone?: boolean
}

/** What became of a payment's transaction once broadcast: its own receipt (its item's, in a batch), or not yet. */
export type Sent =
  /** `batched`: the receipt is the payment's item's in a settler batch. */
  | { readonly _tag: 'Mined'; readonly receipt: TransferReceipt; readonly batched: boolean }
  | { readonly _tag: 'Pending'; readonly txHash: Hex }
  /** The settler did not run its item (docs/ARCHITECTURE.md §5.7): the row is released, nothing of it moved. */
  | { readonly _tag: 'NotRun'; readonly reason: string }

export type SubmissionResult = E.Either<InfrastructureFailure, Sent>

export interface GroupDeps {
  readonly journal: SettlementJournal
  readonly submitter: TransferSubmitter
  readonly clock: Clock
  /** Told what each batch's failed items cost (batch-penalties.ts) [none]. */
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

/**
 * docs/ARCHITECTURE.md §5.3 and §5.7: one transaction for a group of claimed payments — a lone transfer for one, a
 * settler batch for several — signed, recorded on every row before it is broadcast, then broadcast. `onRecorded` is
 * called once the journal has answered (the next group may then be signed). Answers each payment's result, in order.
 */
export const submitGroup = async (deps: GroupDeps, group: ReadonlyArray<Submission>, onRecorded: () => void): Promise<ReadonlyArray<SubmissionResult>> => {
  const everyone = <A>(result: A): ReadonlyArray<A> => group.map(() => result)
  const prepared = await prepare(deps, group)()
  if (E.isLeft(prepared)) {
    onRecorded()
    await releaseAll(deps, group, 'claimed', prepared.left.reason)
    return everyone(E.left(prepared.left))
  }
  const transfer = prepared.right
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
      return everyone(E.left(recorded.failure))
    case 'BatchStale':
      return Promise.all(group.map((one) => submitGroup(deps, [one], () => {}).then((results) => results[0]!)))
    case 'Recorded':
      return broadcast(deps, group, transfer)
  }
}

const prepare = ({ submitter }: GroupDeps, group: ReadonlyArray<Submission>) => {
  if (group.length === 1 || submitter.prepareBatch === undefined) {
    const { authorization, signature, executionGas } = group[0]!.item
    return submitter.prepare(authorization, signature, executionGas)
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
 * recovery, which decides each from the chain).
 */
const releaseAll = async (deps: GroupDeps, group: ReadonlyArray<Submission>, from: 'claimed' | 'submitted', reason: string): Promise<void> => {
  if (group.length === 1) await deps.journal.markReleased(group[0]!.ref, from, reason)()
  else await deps.journal.markBatchReleased(group.map((s) => s.ref), from, reason)()
}

/** Once broadcast, each answer is its payment's outcome, or Pending: never an infrastructure failure. */
const broadcast = async (deps: GroupDeps, group: ReadonlyArray<Submission>, transfer: PreparedTransfer): Promise<ReadonlyArray<SubmissionResult>> => {
  const waitMs = Math.min(...group.map((s) => s.waitMs))
  const pending: SubmissionResult = E.right({ _tag: 'Pending', txHash: transfer.txHash })
  const sent = await deps.submitter.send(transfer, waitMs)()
  if (E.isLeft(sent)) {
    if (sent.left._tag === 'SendUncertain') return group.map(() => pending)
    await deps.submitter.discard(transfer)()
    const reason = `refused by the node: ${sent.left.reason}`
    await releaseAll(deps, group, 'submitted', reason)
    return group.map(() => E.left(chainUnavailable(`the node refused the transaction: ${sent.left.reason}`)))
  }
  if (sent.right._tag !== 'Mined') return group.map(() => pending)
  const { receipt } = sent.right
  const batch = group.length > 1
  if (!batch) return [E.right({ _tag: 'Mined', receipt: receiptForRow([{ txHash: transfer.txHash }], receipt), batched: false })]
  noteBatchOutcomes(deps.penalties, group.map((s) => s.item), receipt, deps.itemGasLimit ?? 300_000n)
  // Items the settler did not run (it stopped for gas; an earlier settler reverted whole): nothing of them moved. Their
  // rows alone are released, in one statement, and each goes again alone; the items that ran keep their outcomes.
  const attemptOf = (index: number) => [{ txHash: transfer.txHash, batchIndex: index }]
  const notRun = group.filter((_, index) => rowNotRunInBatch(attemptOf(index), receipt))
  const released = notRun.length === 0 ? E.right([]) : await deps.journal.markBatchReleased(notRun.map((s) => s.ref), 'submitted', notRunReason(receipt))()
  return group.map((submission, index): SubmissionResult => {
    if (!notRun.includes(submission)) return E.right({ _tag: 'Mined', receipt: receiptForRow(attemptOf(index), receipt), batched: true })
    // A release that did not answer leaves the row to recovery, which releases it from the same receipt.
    return E.isRight(released) && released.right.includes(submission.ref.id) ? E.right({ _tag: 'NotRun', reason: notRunReason(receipt) }) : pending
  })
}
