import * as E from 'fp-ts/lib/Either.js'

/**
 * Times one port's calls: a histogram with its other labels already set (prom-client's `histogram.labels(…)` is one),
 * told each call's name and outcome when it ends.
 */
export interface CallTimer {
  readonly startTimer: () => (labels: { readonly call: string; readonly outcome: string }) => void
}

/** A `Task<void>` member (`discard`, `abandon`) answers nothing: only an Either can be a failure. */
const isLeft = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && '_tag' in result && E.isLeft(result as E.Either<unknown, unknown>)

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown })?.then === 'function'

/**
 * The same port, with the duration and outcome of each call observed. Works on any port whose members return
 * a TaskEither (or Task, or Promise): the wrapped member returns the same kind of thing. The casts are those of a
 * wrapper over any port: the compiler cannot follow each member's own type through the loop.
 */
export const timedPort = <P extends object>(port: P, histogram: CallTimer): P => {
  const timed = (call: string, run: Promise<unknown>) => {
    const stop = histogram.startTimer()
    return run.then(
      (result) => {
        stop({ call, outcome: isLeft(result) ? 'failure' : 'success' })
        return result
      },
      (error: unknown) => {
        stop({ call, outcome: 'error' })
        // A port that threw (a defect) still throws to its caller: timed, not turned into a failure.
        return Promise.reject(error)
      },
    )
  }
  const wrapped: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(port)) {
    wrapped[name] =
      typeof member !== 'function'
        ? member
        : (...args: unknown[]) => {
            const result = (member as (...a: unknown[]) => unknown)(...args)
            if (typeof result === 'function') return () => timed(name, (result as () => Promise<unknown>)())
            return isPromise(result) ? timed(name, result) : result
          }
  }
  return wrapped as P
}
