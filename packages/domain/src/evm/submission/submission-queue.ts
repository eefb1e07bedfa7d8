import type { CancelTimer } from '../../ports/clock.js'
import { reservationId } from '../../penalties/judge-receipt.js'
import type { SubmissionQueue } from '../../ports/submissions.js'
import { ownSubmission, type Submission, type SubmissionResult } from './group-types.js'
import { submitGroup, type GroupDeps } from './group-submission.js'

/** Where a claimed payment goes to be signed, recorded and broadcast (docs/ARCHITECTURE.md §5.3, §5.7). */
export interface SubmissionQueueOptions {
  /**
   * The most payments one settler call carries (`BATCH_MAX_ITEMS`); 1, or a submitter without a settler: no batches.
   */
  readonly maxItems: number
  /**
   * How long a payment may wait for others while an earlier transaction of ours is in flight (`BATCH_WINDOW_MS`) [25].
   */
  readonly windowMs?: number
}

interface Waiting {
  readonly since: number
  readonly submission: Submission
  readonly done: (result: SubmissionResult) => void
  readonly failed: (error: unknown) => void
}

/**
 * Whether a settler batch may carry a payment (docs/ARCHITECTURE.md §5.7). Not: one the submitter cannot batch
 * (`mayBatch`: an ERC-6492 payer not yet deployed, deployed in its settle's transaction through Multicall3, which the
 * settler cannot do; a Permit2 payment; one whose trial needs more than the settler's per-item bound); a payment a
 * batch did not run, sent again; a payer the penalty box refuses.
 */
const batchable = (deps: GroupDeps, { item, alone }: Submission): boolean =>
  alone !== true &&
  (deps.submitter.mayBatch?.(item) ?? true) &&
  (deps.penalties?.mayBatch(item.authorization.from, item.payerHasCode === true) ?? true)

/**
 * Group commit (docs/ARCHITECTURE.md §5.7). Without batches every payment is signed and recorded at once, each its own
 * transaction, concurrently. With a settler, one group is signed and recorded at a time, and a group goes when
 * nothing of ours is in flight (an idle facilitator sends a lone payment at once), when `maxItems` wait, or when the
 * oldest has waited `windowMs`: while a transaction of ours waits for its block, payments gather (up to `maxItems`,
 * in one settler call) for at most the window, a bound far below a block's time.
 */
export const makeSubmissionQueue = (deps: GroupDeps, options: SubmissionQueueOptions): SubmissionQueue => {
  if (options.maxItems <= 1 || deps.submitter.prepareBatch === undefined) {
    return { submit: async (submission) => (await submitGroup(deps, [ownSubmission(submission)]).results)[0]! }
  }
  const windowMs = options.windowMs ?? 25
  const now = () => deps.clock.monotonicMs()
  let waiting: Waiting[] = []
  let signing = false
  /** Groups broadcast (or being signed) whose outcome is not known yet. */
  let inFlight = 0
  let cancelTimer: CancelTimer | undefined

  const reserveItem = ({ item, ref }: Submission): boolean =>
    item.payerHasCode !== true ||
    deps.penalties === undefined ||
    deps.penalties.reserve(reservationId(ref), item.authorization.from, deps.itemGasLimit ?? 300_000n, false) ===
      undefined

  /** The oldest payment, and (when it may be batched) every other batchable one up to `maxItems`. */
  const takeGroup = (): ReadonlyArray<Waiting> => {
    const first = waiting[0]!
    if (!batchable(deps, first.submission)) {
      waiting = waiting.slice(1)
      return [first]
    }
    const candidates = waiting.filter((w) => batchable(deps, w.submission)).slice(0, options.maxItems)
    // What does not fit one transaction (gas, size) waits, in its place, for the next group.
    const fit = Math.max(
      1,
      Math.min(
        candidates.length,
        deps.submitter.batchFits?.(candidates.map((w) => w.submission.item)) ?? candidates.length,
      ),
    )
    // Each item of a payer with code takes its bound out of the budget while in flight (docs/ARCHITECTURE.md §5.7):
    // once lost plus reserved gas reaches it, the rest go alone (where the lone budget decides).
    const group = new Set(candidates.slice(0, fit).filter((w) => reserveItem(w.submission)))
    if (group.size === 0) {
      waiting = waiting.slice(1)
      return [{ ...first, submission: { ...first.submission, alone: true } }]
    }
    waiting = waiting.filter((w) => !group.has(w))
    return [...group]
  }

  /** Whether the oldest waiting payment should go now; if not, a timer looks again when its window ends. */
  const due = (): boolean => {
    if (inFlight === 0 || waiting.length >= options.maxItems) return true
    const waited = now() - waiting[0]!.since
    if (waited >= windowMs) return true
    cancelTimer ??= deps.clock.after(windowMs - waited, () => {
      cancelTimer = undefined
      pump()
    })
    return false
  }

  const pump = (): void => {
    if (signing || waiting.length === 0 || !due()) return
    cancelTimer?.()
    cancelTimer = undefined
    signing = true
    inFlight++
    const group = takeGroup()
    let released = false
    const signed = () => {
      if (released) return
      released = true
      signing = false
      pump()
    }
    const submitted = submitGroup(
      deps,
      group.map((w) => w.submission),
    )
    void submitted.recorded.then(signed)
    submitted.results
      .then(
        // Each payment is answered when its own result comes; the group is in flight until the last one has.
        (results) => Promise.all(results.map((result, k) => result.then(group[k]!.done, group[k]!.failed))),
        (error: unknown) => {
          signed()
          group.forEach((w) => w.failed(error))
        },
      )
      .finally(() => {
        inFlight--
        pump()
      })
  }

  return {
    submit: (submission) =>
      new Promise((done, failed) => {
        waiting.push({ since: now(), submission: ownSubmission(submission), done, failed })
        pump()
      }),
  }
}
