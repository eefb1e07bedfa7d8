import * as E from 'fp-ts/lib/Either.js'

/**
 * Times one port's calls: a histogram with its other labels already set (prom-client's `histogram.labels(…)` is one),
 * told each call's name and outcome when it ends.
 */
export interface CallTimer {
  readonly startTimer: () => (labels: { readonly call: string; readonly outcome: string }) => void
}

/** A `Task<void>` member (`discard`, `abandon`) answers nothing: only an Either can be a failure. */
const outcomeOf = (result: unknown): string =>
  typeof result === 'object' && result !== null && '_tag' in result && E.isLeft(result as E.Either<unknown, unknown>)
    ? 'failure'
    : 'success'

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | undefined)?.then === 'function'

/**
 * The same port, with the duration and outcome of each call observed. Works on any port whose members return
 * a TaskEither (or Task, or Promise): the wrapped member returns the same kind of thing. The casts are those of a
 * wrapper over any port: the compiler cannot follow each member's own type through the loop.
 */
export const timedPort = <P extends object>(port: P, histogram: CallTimer): P => {
  const wrapped: Record<string, unknown> = {}
  for (const [call, member] of Object.entries(port)) {
    if (typeof member !== 'function') {
      wrapped[call] = member
      continue
    }
    wrapped[call] = (...args: unknown[]) => {
      const result = (member as (...a: unknown[]) => unknown)(...args)
      // A task is timed where it runs, in place: from the use case a reader (and `npm run settle-walk`) goes to the
      // adapter's code with no step of this decorator's in between. The caller gets the adapter's own promise.
      if (typeof result === 'function')
        return () => {
          const stop = histogram.startTimer()
          const running = (result as () => Promise<unknown>)()
          void running.then(
            (r) => stop({ call, outcome: outcomeOf(r) }),
            () => stop({ call, outcome: 'error' }),
          )
          return running
        }
      if (!isPromise(result)) return result
      const stop = histogram.startTimer()
      void result.then(
        (r) => stop({ call, outcome: outcomeOf(r) }),
        () => stop({ call, outcome: 'error' }),
      )
      return result
    }
  }
  return wrapped as P
}
