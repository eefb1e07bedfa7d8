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
 * plans each one once per connection instead of on every call. `onStatement` counts the statements sent.
 */
const ignoreError = (): void => undefined

export const makeStatementRunner =
  (pool: pg.Pool, onStatement?: () => void): RunStatement =>
  async (sql, values) => {
    const client = await pool.connect()
    // A checked-out client has no listener of the pool's: a server's FATAL (Postgres shutting down) read in the same
    // chunk as the statement's completion is emitted before `release` runs, and unheard it would crash the process.
    // Such a client is no longer queryable, so the pool drops it on release.
    client.on('error', ignoreError)
    try {
      onStatement?.()
      const result = await client.query({ ...statementFor(sql), values: [...values] })
      client.removeListener('error', ignoreError)
      client.release()
      return result
    } catch (error) {
      // Refused by Postgres, the connection is fine. Otherwise (timed out on the client with the statement still in
      // flight, lost) it is closed instead of given back: a later statement would queue behind the hung one.
      client.removeListener('error', ignoreError)
      client.release(!refusedByTheDatabase(error))
      throw error
    }
  }
