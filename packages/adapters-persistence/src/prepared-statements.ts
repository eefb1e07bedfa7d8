import pg from 'pg'

/** What a statement answered; its rows come from outside the process and are decoded by whoever reads them. */
export interface StatementResult {
  readonly rows: ReadonlyArray<unknown>
  readonly rowCount: number | null
}

export type RunStatement = (sql: string, values: ReadonlyArray<unknown>) => Promise<StatementResult>

/** Postgres answered with an error: the statement was rolled back, and the connection is in step with the server. */
export const refusedByTheDatabase = (error: unknown): boolean => error instanceof pg.DatabaseError

/** `?` placeholders (as the journal's SQL is written) → `$1…$n` (as Postgres takes them); that SQL has no `?` of its own. */
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
 * plans each one once per connection instead of on every call. `onStatement` is called as each statement is sent (to count them).
 * `pool` comes from `createPgPool`, whose clients hear their errors even while checked out (a FATAL read with the
 * statement's answer); a client that is no longer queryable is dropped by the pool on release.
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
