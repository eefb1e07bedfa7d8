import type { Clock } from '@x402-facilitator/domain'

/** A clock the test moves: its timers run only when `advance` passes their time. */
export interface TestClock extends Clock {
  /** Moves the time on by `ms`, running (in time order) each timer that comes due. */
  readonly advance: (ms: number) => void
  /** Timers set and neither run nor cancelled. */
  readonly pendingTimers: () => number
}

/**
 * Time starts at `start` and moves only by `advance`. Sleeps are real (and short): a waiting retry interleaves with the
 * request it waits for, on later turns of the event loop.
 */
export const makeTestClock = (start: Date): TestClock => {
  let elapsed = 0
  let nextId = 0
  const timers = new Map<number, { readonly at: number; readonly run: () => void }>()
  const advance = (ms: number): void => {
    const until = elapsed + ms
    for (;;) {
      const due = [...timers.entries()]
        .filter(([, t]) => t.at <= until)
        .sort(([a, x], [b, y]) => x.at - y.at || a - b)[0]
      if (due === undefined) break
      const [id, timer] = due
      timers.delete(id)
      elapsed = Math.max(elapsed, timer.at)
      timer.run()
    }
    elapsed = until
  }
  return {
    now: () => new Date(start.getTime() + elapsed),
    sleep: (ms) => () => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    monotonicMs: () => elapsed,
    after: (ms, run) => {
      const id = nextId++
      timers.set(id, { at: elapsed + Math.max(0, ms), run })
      return () => void timers.delete(id)
    },
    advance,
    pendingTimers: () => timers.size,
  }
}
