import knexFactory, { type Knex } from 'knex'
import { boundedConnection, type PostgresOptions } from './bounded-connection.js'
import { defaultJournalTimeoutMs } from '../journal/journal-statements.js'

export interface KnexOptions extends PostgresOptions {
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
export const createKnex = (options: KnexOptions): Knex =>
  knexFactory({
    client: 'pg',
    connection: boundedConnection(options),
    acquireConnectionTimeout: options.timeoutMs ?? defaultJournalTimeoutMs,
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
