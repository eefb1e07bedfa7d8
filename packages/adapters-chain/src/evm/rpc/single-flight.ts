import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * Runs `task` at most once at a time and keeps its first success for good; a failure is not kept, so the next call
 * tries again. For what is fixed per token or per chain (domain, chain id).
 */
export const singleFlight = <E, A>(task: TE.TaskEither<E, A>): TE.TaskEither<E, A> => {
  let settled: E.Either<E, A> | undefined
  let inFlight: Promise<E.Either<E, A>> | undefined
  return () => {
    if (settled) return Promise.resolve(settled)
    inFlight ??= task().then((result) => {
      inFlight = undefined
      if (E.isRight(result)) settled = result
      return result
    })
    return inFlight
  }
}
