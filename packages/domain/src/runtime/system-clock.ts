import type { Clock } from '../ports/clock.js'

/** The machine's clock and Node's timers: the one binding of the domain's `Clock` port outside tests. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => () => new Promise((resolve) => setTimeout(resolve, ms)),
  monotonicMs: () => performance.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms)
    return () => clearTimeout(timer)
  },
}
