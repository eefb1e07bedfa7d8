import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import pg from 'pg'
import { type JournalUnavailable, journalUnavailable } from '@x402-facilitator/domain'

// How one journal statement runs: prepared once per connection, bounded in time, its failure told apart.

/** What a statement answered; its rows come from outside the process and are decoded by whoever reads them. */
export interface StatementResult {
  readonly rows: ReadonlyArray<unknown>
  readonly rowCount: number | null
}

export type RunStatement = (sql: string, values: ReadonlyArray<unknown>) => Promise<StatementResult>

/** Postgres answered with an error: the statement was rolled back, and the connection is in step with the server. */
export const refusedByTheDatabase = (error: unknown): boolean => error instanceof pg.DatabaseError

/**
 * `?` placeholders (as the journal's SQL is written) → `$1…$n` (as Postgres takes them); that SQL has no `?` of its
 * own.
 */
const positional = (sql: string): string => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

const statements = new Map<string, { readonly name: string; readonly text: string }>()

const statementFor = (sql: string) => {
  let statement = statements.get(sql)
  if (statement === undefined) {
    statement = { name: `x402_journal_${statements.size + 1}`, text: positional(sql) }
    statements.set(sql, statement)
  }
  return statement
}

/**
 * Runs the journal's statements as named prepared statements, pg's `{ name, text, values }`: Postgres parses and
 * plans each one once per connection instead of on every call. `onStatement` is called as each statement is sent (to
 * count them). `pool` comes from `createPgPool`, whose clients hear their errors even while checked out (a FATAL read
 * with the statement's answer); a client that is no longer queryable is dropped by the pool on release.
 */
export const makeStatementRunner =
  (pool: pg.Pool, onStatement?: () => void): RunStatement =>
  async (sql, values) => {
    const client = await pool.connect()
    try {
      onStatement?.()
      const result = await client.query({ ...statementFor(sql), values: [...values] })
      client.release()
      return result
    } catch (error) {
      // Refused by Postgres, the connection is fine. Otherwise (timed out on the client with the statement still in
      // flight, lost) it is closed instead of given back: a later statement would queue behind the hung one.
      client.release(!refusedByTheDatabase(error))
      throw error
    }
  }

/** How long a journal call may take before it answers `JournalUnavailable`, unless configured [5000 ms]. */
export const defaultJournalTimeoutMs = 5_000

/**
 * Errors that come before a statement reaches Postgres, or that Postgres answered (it rolled back): nothing written.
 */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const surelyNothingWritten = (error: unknown): boolean =>
  refusedByTheDatabase(error) ||
  (error instanceof Error && 'code' in error && typeof error.code === 'string' && NOT_CONNECTED.has(error.code))

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
