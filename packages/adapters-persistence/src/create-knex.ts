import knexFactory, { type Knex } from 'knex'
import { defaultJournalTimeoutMs } from './with-timeout.js'

export interface KnexOptions {
  readonly connectionString: string
  /** Bound on connecting, acquiring a pooled connection and running one statement [5000 ms]. */
  readonly timeoutMs?: number
  readonly poolMax?: number
  readonly applicationName?: string
  /** Where knex's own warnings go (dead connections, migration lock waits) [console]. */
  readonly log?: Knex.Logger
}

export const silentKnexLog: Knex.Logger = {
  warn: () => undefined,
  error: () => undefined,
  deprecate: () => undefined,
  debug: () => undefined,
}

interface PgClientState {
  readonly readyForQuery?: boolean
}

/**
 * A knex pool whose every wait is bounded, so that an unreachable Postgres becomes an error within
 * `timeoutMs` instead of a hang, and whose dead connections are dropped so it heals when Postgres returns.
 */
export const createKnex = (options: KnexOptions): Knex => {
  const timeoutMs = options.timeoutMs ?? defaultJournalTimeoutMs
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: options.connectionString,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      // Client-side backstop for a server that stopped answering (statement_timeout cannot fire then).
      query_timeout: timeoutMs * 2,
      keepAlive: true,
      application_name: options.applicationName ?? 'x402-facilitator',
    },
    acquireConnectionTimeout: timeoutMs,
    log: options.log,
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      idleTimeoutMillis: 30_000,
      // A connection whose query timed out on the client still has that query in flight: reusing it would
      // queue every later statement behind it, so it is discarded instead. (Knex itself drops connections
      // that reported an error before it calls this.)
      validate: (connection: PgClientState) => connection.readyForQuery === true,
    },
  })
}
