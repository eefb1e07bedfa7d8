import DataLoader from 'dataloader'

export interface PerTickBatchOptions<I, O> {
  /** One call alone: the statement it always had. */
  readonly one: (item: I) => Promise<O>
  /**
   * Several calls as one statement; the answers in the order of the items, an `Error` for a call that failed after the
   * statement (it must not reject then: the statement's writes stand, and running them again would meet them).
   */
  readonly many: (items: ReadonlyArray<I>) => Promise<ReadonlyArray<O | Error>>
  /**
   * Calls sharing a key never share a statement (each would see the other's row as it was before); a call may have
   * several (each unique index its write could meet).
   */
  readonly keysOf: (item: I) => ReadonlyArray<string>
  readonly maxBatchSize?: number
  /**
   * Whether a batch that failed this way may run again call by call: only when it surely changed nothing (Postgres
   * refused it). After a lost connection it may have committed, and a second run would see its own rows.
   */
  readonly refusedByTheDatabase: (error: unknown) => boolean
}

export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))

/**
 * Splits calls so that no two sharing a key share a group: each call goes to the first group after every group holding
 * one of its keys, so a call colliding with an earlier one always runs after it, in call order.
 */
const uniqueKeyGroups = <I>(items: ReadonlyArray<I>, keysOf: (item: I) => ReadonlyArray<string>): I[][] => {
  const groups: I[][] = []
  const lastGroupOf = new Map<string, number>()
  for (const item of items) {
    const keys = keysOf(item)
    const g = Math.max(-1, ...keys.map((key) => lastGroupOf.get(key) ?? -1)) + 1
    if (g === groups.length) groups.push([])
    groups[g]!.push(item)
    for (const key of keys) lastGroupOf.set(key, g)
  }
  return groups
}

/**
 * The calls made in one turn of the event loop (e.g. every settle woken by one block's receipts) go to Postgres as one
 * statement: one round trip and one commit instead of one each, which was most of Postgres' CPU per settle. Each call
 * still gets its own answer. A batch Postgres refuses runs its calls one by one, in order, so a call that fails fails
 * alone.
 */
export const perTickBatch = <I, O>({
  one,
  many,
  keysOf,
  maxBatchSize = 256,
  refusedByTheDatabase,
}: PerTickBatchOptions<I, O>): ((item: I) => Promise<O>) => {
  const runGroup = async (group: ReadonlyArray<I>): Promise<Array<O | Error>> => {
    if (group.length > 1) {
      try {
        return [...(await many(group))]
      } catch (error) {
        if (!refusedByTheDatabase(error)) return group.map(() => asError(error))
        // One bad row fails a whole statement: find it by running each call on its own.
      }
    }
    const answers: Array<O | Error> = []
    for (const item of group) answers.push(await one(item).catch(asError))
    return answers
  }
  const loader = new DataLoader<I, O, I>(
    async (items) => {
      const answers: Array<O | Error> = []
      const indices = items.map((_, i) => i)
      for (const group of uniqueKeyGroups(indices, (i) => keysOf(items[i]!))) {
        const results = await runGroup(group.map((i) => items[i]!))
        group.forEach((i, k) => (answers[i] = results[k] ?? new Error('the batch left a call unanswered')))
      }
      return answers
    },
    { cache: false, maxBatchSize, batchScheduleFn: (callback) => setImmediate(callback) },
  )
  return (item) => loader.load(item)
}
