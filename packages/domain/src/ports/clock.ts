import type { Task } from 'fp-ts/lib/Task.js'

/** The time, injected so that rules stay pure and tests can pin it. */
export interface Clock {
  readonly now: () => Date
  /** Waits; used to poll for an outcome another request is still producing. */
  readonly sleep: (ms: number) => Task<void>
}

export const unixSeconds = (date: Date): bigint => BigInt(Math.floor(date.getTime() / 1000))
