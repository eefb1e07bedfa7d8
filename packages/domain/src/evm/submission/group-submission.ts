import * as E from 'fp-ts/lib/Either.js'
import {
  journalUnavailable,
  type InfrastructureFailure,
  type JournalUnavailable,
  type SettleRefusal,
} from '../../model/failures.js'
import type { Settlement, Transition } from '../../ports/settlement-journal.js'
import type { PreparedTransfer } from '../ports/transfer-submitter.js'
import { reservationId } from '../../penalties/judge-receipt.js'
import type { GroupDeps, GroupResults, GroupSubmission, Submission, SubmissionResult } from './group-types.js'
import { broadcast, releaseAll, settleReservations } from './group-broadcast.js'

export type { GroupDeps, GroupResults, GroupSubmission } from './group-types.js'

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
 * settler batch for several — signed, recorded on every row before it is broadcast, then broadcast.
 */
export const submitGroup = (deps: GroupDeps, group: ReadonlyArray<Submission>): GroupSubmission => {
  let markRecorded = (): void => {}
  const recorded = new Promise<void>((resolve) => (markRecorded = resolve))
  const results = signRecordBroadcast(deps, group, markRecorded)
  // A failure past every answer above still lets the next group be signed.
  void results.catch(markRecorded)
  return { recorded, results }
}

const signRecordBroadcast = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  onRecorded: () => void,
): Promise<GroupResults> => {
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
    await releaseAll(
      deps,
      group,
      'claimed',
      'not sent: ' +
        (refused._tag === 'PayerSuspended'
          ? 'its payer has payments with code in flight'
          : 'the gas budget for payers with code is spent (with what is in flight)'),
    )
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
      return (await Promise.all(group.map((one) => submitGroup(deps, [one]).results))).flat()
    case 'Recorded':
      return broadcast(deps, group, transfer)
  }
}

/**
 * A lone transaction of a payer with code takes its gas limit out of the lone budget while in flight (a batch's items
 * took their bound when the queue grouped them, submission-queue.ts): docs/ARCHITECTURE.md §5.7. A refusal, when
 * spent.
 */
const reserveInFlightGas = (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  transfer: PreparedTransfer,
): SettleRefusal | undefined => {
  const { penalties } = deps
  const lone = group[0]!
  if (penalties === undefined || group.length > 1 || lone.item.payerHasCode !== true) return undefined
  const payer = lone.item.authorization.from
  const refused = penalties.reserve(reservationId(lone.ref), payer, transfer.gasLimit ?? LONE_GAS_IF_UNKNOWN, true)
  if (refused === undefined) return undefined
  return refused._tag === 'BudgetSpent'
    ? { _tag: 'ContractPayerGasBudgetSpent', payer, until: refused.until }
    : { _tag: 'PayerSuspended', payer, until: refused.until }
}

/** What a lone transaction of a payer with code is reserved when its submitter does not say its gas limit. */
const LONE_GAS_IF_UNKNOWN = 1_300_000n

const prepare = ({ submitter }: GroupDeps, group: ReadonlyArray<Submission>) => {
  if (group.length === 1 || submitter.prepareBatch === undefined) {
    const { authorization, signature, executionGas, payerHasCode, trialGasCap } = group[0]!.item
    return submitter.prepare(
      authorization,
      signature,
      executionGas,
      payerHasCode === true ? (trialGasCap === undefined ? {} : { trialGasCap }) : undefined,
    )
  }
  return submitter.prepareBatch(group.map((s) => s.item))
}

const record = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  transfer: PreparedTransfer,
): Promise<Recorded> => {
  const attempt = { ...transfer, sentAt: deps.clock.now() }
  const batch = group.length > 1
  const written = batch
    ? await deps.journal.markBatchSubmitted(
        group.map((s) => s.ref),
        attempt,
      )()
    : await deps.journal.markSubmitted(group[0]!.ref, attempt)()
  if (E.isRight(written)) {
    if (written.right === 'applied') return { _tag: 'Recorded' }
    await deps.submitter.discard(transfer)()
    return batch
      ? { _tag: 'BatchStale' }
      : {
          _tag: 'NotRecorded',
          failure: journalUnavailable('the claim was released before its transaction was recorded'),
        }
  }
  if (written.left.nothingWritten) return nothingRecorded(deps, transfer, written.left)
  return fenceUncertainWrite(deps, group, transfer, written.left)
}

const nothingRecorded = async (
  deps: GroupDeps,
  transfer: PreparedTransfer,
  failure: InfrastructureFailure,
): Promise<Recorded> => {
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
const fenceUncertainWrite = async (
  deps: GroupDeps,
  group: ReadonlyArray<Submission>,
  transfer: PreparedTransfer,
  failure: JournalUnavailable,
): Promise<Recorded> => {
  const { journal } = deps
  const fences: Transition[] = []
  for (const { ref } of group) {
    const fenced = await journal.markReleased(ref, 'claimed', `its attempt's write did not answer: ${failure.reason}`)()
    // One release applied already proves the write did not commit (it stores all rows or none).
    if (E.isLeft(fenced))
      return fences.includes('applied') ? nothingRecorded(deps, transfer, failure) : abandon(deps, transfer)
    fences.push(fenced.right)
  }
  if (fences.some((t) => t === 'applied')) return nothingRecorded(deps, transfer, failure)
  const first = group[0]!
  const row = await journal.findByKey(first.key)()
  if (E.isLeft(row)) return abandon(deps, transfer)
  const holdsOurAttempt = (r: Settlement) =>
    r.generation === first.ref.generation &&
    r.state === 'submitted' &&
    r.attempts.some((a) => a.txHash === transfer.txHash)
  if (row.right._tag === 'Some' && holdsOurAttempt(row.right.value)) return { _tag: 'Recorded' }
  return nothingRecorded(deps, transfer, failure)
}

const abandon = async (deps: GroupDeps, transfer: PreparedTransfer): Promise<Recorded> => {
  await deps.submitter.abandon(transfer)()
  return { _tag: 'Unknown' }
}
