import pg from 'pg'
import { boundedConnection, type PostgresOptions } from './bounded-connection.js'

/** The journal's pool (`createPgPool`), named so that callers need not depend on pg's types. */
export type PgPool = pg.Pool

export interface PgPoolOptions extends PostgresOptions {
  /** An idle pooled connection failed (e.g. Postgres restarted); the pool has already dropped it [ignored]. */
  readonly onIdleError?: (error: Error) => void
}

const ignoreError = (): void => undefined

/**
 * pg's Client, heard from its creation to its end. pg-pool listens to a client only while it is idle in the pool; a
 * FATAL read in the same chunk as the ReadyForQuery that completes a new connection (Postgres shutting down as it
 * opens) is emitted after the pool has handed the client out and before its caller can listen, and an unheard
 * 'error' is thrown by EventEmitter: it would end the process. The error is not lost: the pending statement fails with
 * it, and a client that is no longer queryable is dropped when released.
 */
class HeardClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config)
    this.on('error', ignoreError)
  }
}

/**
 * The journal's pool, bounded as `createKnex`'s is (its `connectionTimeoutMillis` also bounds the wait for a free
 * connection); dead connections are dropped so it heals when Postgres returns.
 */
export const createPgPool = (options: PgPoolOptions): PgPool => {
  const pool = new pg.Pool({
    ...boundedConnection(options),
    min: 0,
    max: options.poolMax ?? 10,
    idleTimeoutMillis: 30_000,
    Client: HeardClient,
  })
  // An idle client's error comes here (pg-pool re-emits it on the pool after dropping the client).
  pool.on('error', options.onIdleError ?? ignoreError)
  return pool
}
