import { makePostgresStore } from '@x402-facilitator/adapters-persistence'
import type { OpenStore } from './store-module.js'

/**
 * The store on Postgres: `DATABASE_URL`, or else embedded Postgres in `DATA_DIR` (with dev mode's chain, a database
 * made anew). The one file of the app that knows which store it runs on.
 */
export const openPostgresStore: OpenStore = ({ config, logger, infrastructure, networks, lockEvents, progress }) =>
  makePostgresStore({
    databaseUrl: config.DATABASE_URL,
    devDatabase: { dataDirectory: config.DATA_DIR, fresh: infrastructure.devChain !== undefined },
    timeoutMs: config.DB_TIMEOUT_MS,
    networks,
    replicaLockEvents: lockEvents,
    log: {
      warn: (message) => logger.warn({ knex: message }, 'database'),
      error: (message) => logger.error({ knex: message }, 'database'),
      idleJournalError: (error) => logger.warn({ err: error }, 'database: an idle journal connection failed'),
      stopFailed: (part, error) => logger.error({ err: error }, `stopping ${part} failed`),
    },
    progress,
  })
