import type { Task } from 'fp-ts/lib/Task.js'

/** The time and every timer, injected so that rules stay pure and tests can drive them. */
export interface Clock {
  /** The wall clock's time, for dates that are stored or compared with the chain's. */
  readonly now: () => Date
  /** Waits; used to poll for an outcome another request is still producing. */
  readonly sleep: (ms: number) => Task<void>
  /** Milliseconds from an arbitrary origin that never run back (a step of the wall clock does not move them). */
  readonly monotonicMs: () => number
  /** Calls `run` once, `ms` from now; the answer cancels the call if it has not happened yet. */
  readonly after: (ms: number, run: () => void) => CancelTimer
}

export type CancelTimer = () => void
