import { parseErc6492Signature } from '../model/erc6492-signature.js'
import { submitGroup, type GroupDeps, type Submission, type SubmissionResult } from './group-submission.js'

/** Where a claimed payment goes to be signed, recorded and broadcast (docs/ARCHITECTURE.md §5.3, §5.7). */
export interface SubmissionQueue {
  readonly submit: (submission: Submission) => Promise<SubmissionResult>
}

export interface SubmissionQueueOptions {
  /** The most payments one settler call carries (`BATCH_MAX_ITEMS`); 1, or a submitter without a settler: no batches. */
  readonly maxItems: number
}

interface Waiting {
  readonly submission: Submission
  readonly done: (result: SubmissionResult) => void
  readonly failed: (error: unknown) => void
}

/**
 * An ERC-6492 payer not yet deployed is deployed in its settle's transaction (through Multicall3), which the settler
 * cannot do; a wrapped signature therefore always goes in its own transaction.
 */
const batchable = ({ item }: Submission): boolean => parseErc6492Signature(item.signature)._tag === 'NotWrapped'

/**
 * Group commit (docs/ARCHITECTURE.md §5.7). Without batches every payment is signed and recorded at once, each its own
 * transaction, concurrently. With a settler, one group is signed and recorded at a time: a payment that finds nothing
 * being signed goes at once, alone (an idle facilitator adds no latency); payments arriving meanwhile wait and go
 * together, up to `maxItems`, in one settler call as soon as the journal has answered for the group before.
 */
export const makeSubmissionQueue = (deps: GroupDeps, options: SubmissionQueueOptions): SubmissionQueue => {
  if (options.maxItems <= 1 || deps.submitter.prepareBatch === undefined) {
    return { submit: async (submission) => (await submitGroup(deps, [submission], () => {}))[0]! }
  }
  let waiting: Waiting[] = []
  let signing = false

  /** The oldest payment, and (when it may be batched) every other batchable one up to `maxItems`. */
  const takeGroup = (): ReadonlyArray<Waiting> => {
    const first = waiting[0]!
    if (!batchable(first.submission)) {
      waiting = waiting.slice(1)
      return [first]
    }
    const group: Waiting[] = []
    const rest: Waiting[] = []
    for (const w of waiting) (group.length < options.maxItems && batchable(w.submission) ? group : rest).push(w)
    waiting = rest
    return group
  }

  const pump = (): void => {
    if (signing || waiting.length === 0) return
    signing = true
    const group = takeGroup()
    let released = false
    const signed = () => {
      if (released) return
      released = true
      signing = false
      pump()
    }
    submitGroup(
      deps,
      group.map((w) => w.submission),
      signed,
    ).then(
      (results) => group.forEach((w, k) => w.done(results[k]!)),
      (error: unknown) => {
        signed()
        group.forEach((w) => w.failed(error))
      },
    )
  }

  return {
    submit: (submission) =>
      new Promise((done, failed) => {
        waiting.push({ submission, done, failed })
        pump()
      }),
  }
}
