import { defaultJournalTimeoutMs } from '../journal/journal-statements.js'

/** How to reach Postgres, for a knex or a pg pool. */
export interface PostgresOptions {
  readonly connectionString: string
  /** Bound on connecting, waiting for a pooled connection and running one statement [5000 ms]. */
  readonly timeoutMs?: number
  readonly poolMax?: number
  readonly applicationName?: string
}

/**
 * The settings of every pooled connection: each wait is bounded by `timeoutMs`, so that an unreachable Postgres
 * becomes an error instead of a hang.
 */
export const boundedConnection = (options: PostgresOptions) => {
  const timeoutMs = options.timeoutMs ?? defaultJournalTimeoutMs
  return {
    connectionString: options.connectionString,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    // Client-side backstop for a server that stopped answering (statement_timeout cannot fire then).
    query_timeout: timeoutMs * 2,
    keepAlive: true,
    application_name: options.applicationName ?? 'x402-facilitator',
  }
}
