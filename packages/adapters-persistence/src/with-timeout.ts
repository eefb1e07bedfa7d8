import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import pg from 'pg'
import { type JournalUnavailable, journalUnavailable } from '@x402-facilitator/domain'

/** How long a journal call may take before it answers `JournalUnavailable`, unless configured [5000 ms]. */
export const defaultJournalTimeoutMs = 5_000

/** Errors that come before a statement reaches Postgres, or that Postgres answered (it rolled back): nothing written. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const surelyNothingWritten = (error: unknown): boolean =>
  error instanceof pg.DatabaseError || (error instanceof Error && 'code' in error && typeof error.code === 'string' && NOT_CONNECTED.has(error.code))

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const code = 'code' in error ? error.code : undefined
    return typeof code === 'string' && code.length > 0 ? `${error.message} (${code})` : error.message
  }
  return String(error)
}

/**
 * Runs `f` and answers within `timeoutMs` whatever the pool and the server do: a connection that never
 * opens, a statement that never returns and a refused connection all become `JournalUnavailable`.
 */
export const journalCall =
  <A>(operation: string, timeoutMs: number, f: () => Promise<A>): TE.TaskEither<JournalUnavailable, A> =>
  () =>
    new Promise((resolve) => {
      const timer = setTimeout(
        () => resolve(E.left(journalUnavailable(`${operation}: no answer from Postgres within ${timeoutMs} ms`))),
        timeoutMs,
      )
      f().then(
        (value) => {
          clearTimeout(timer)
          resolve(E.right(value))
        },
        (error: unknown) => {
          clearTimeout(timer)
          resolve(E.left(journalUnavailable(`${operation}: ${describe(error)}`, surelyNothingWritten(error))))
        },
      )
    })
