import pg from 'pg'
import { defaultJournalTimeoutMs } from './with-timeout.js'

export interface PgPoolOptions {
  readonly connectionString: string
  /** Bound on connecting, waiting for a pooled connection and running one statement [5000 ms]. */
  readonly timeoutMs?: number
  readonly poolMax?: number
  readonly applicationName?: string
  /** An idle pooled connection failed (e.g. Postgres restarted); the pool has already dropped it [ignored]. */
  readonly onIdleError?: (error: Error) => void
}

/**
 * The journal's pool, bounded as `createKnex`'s is: an unreachable Postgres becomes an error within `timeoutMs`
 * instead of a hang, and dead connections are dropped so it heals when Postgres returns.
 */
export const createPgPool = (options: PgPoolOptions): pg.Pool => {
  const timeoutMs = options.timeoutMs ?? defaultJournalTimeoutMs
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    // Covers both opening a connection and waiting for one while all are busy.
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    // Client-side backstop for a server that stopped answering (statement_timeout cannot fire then).
    query_timeout: timeoutMs * 2,
    keepAlive: true,
    application_name: options.applicationName ?? 'x402-facilitator',
    min: 0,
    max: options.poolMax ?? 10,
    idleTimeoutMillis: 30_000,
  })
  // Without a listener, an error on an idle connection would crash the process.
  pool.on('error', options.onIdleError ?? (() => undefined))
  return pool
}
