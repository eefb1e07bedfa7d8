import pg from 'pg'
import { boundedConnection, type PostgresOptions } from './bounded-connection.js'

/** The journal's pool (`createPgPool`), named so that callers need not depend on pg's types. */
export type PgPool = pg.Pool

export interface PgPoolOptions extends PostgresOptions {
  /** An idle pooled connection failed (e.g. Postgres restarted); the pool has already dropped it [ignored]. */
  readonly onIdleError?: (error: Error) => void
}

/**
 * The journal's pool, bounded as `createKnex`'s is (its `connectionTimeoutMillis` also bounds the wait for a free
 * connection); dead connections are dropped so it heals when Postgres returns.
 */
export const createPgPool = (options: PgPoolOptions): PgPool => {
  const pool = new pg.Pool({ ...boundedConnection(options), min: 0, max: options.poolMax ?? 10, idleTimeoutMillis: 30_000 })
  // Without a listener, an error on an idle connection would crash the process.
  pool.on('error', options.onIdleError ?? (() => undefined))
  return pool
}
