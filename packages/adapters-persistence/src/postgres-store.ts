import type { ReplicaLockEvents, Store } from '@x402-facilitator/domain'
import { createKnex, silentKnexLog } from './database/create-knex.js'
import { makePgDiscoveryCatalog } from './discovery/pg-discovery-catalog.js'
import { makePgWebhookOutbox } from './webhooks/pg-webhook-outbox.js'
import { webhookOutboxOpener } from './webhooks/webhook-outbox-opener.js'
import { createPgPool } from './database/create-pg-pool.js'
import { startDevDatabase, type DevDatabaseOptions } from './dev/dev-database.js'
import { countUnfinishedSettlements, pendingMigrations } from './journal/journal-health.js'
import { migrateToLatest } from './database/migrate-to-latest.js'
import { ensureJournalIndexes } from './journal/journal-indexes.js'
import { registerJournalNetworks } from './journal/journal-networks.js'
import { makePgJournals } from './journal/pg-settlement-journal.js'
import { makeReplicaLiveness } from './replicas/replica-liveness.js'
import { takeReplicaLocks, type StoreNetwork } from './replicas/replica-locks.js'
import { StopInReverse } from './database/stop-in-reverse.js'
import { defaultJournalTimeoutMs } from './journal/journal-statements.js'

/** Where the store's own lines go; each part a plain callback, so that no logger type is imposed. */
export interface PostgresStoreLog {
  /** knex's warnings and errors (dead connections, migration lock waits). */
  readonly warn: (message: string) => void
  readonly error: (message: string) => void
  /** An idle journal connection failed (e.g. Postgres restarted); the pool has dropped it. */
  readonly idleJournalError: (error: Error) => void
  /** A part failed to stop; the others still stop. */
  readonly stopFailed: (part: string, error: unknown) => void
}

/** One network's store, from plain configuration. */
export interface PostgresStoreConfig {
  /** `DATABASE_URL`; unset: embedded Postgres, as `devDatabase` says. */
  readonly databaseUrl?: string
  readonly devDatabase?: Omit<DevDatabaseOptions, 'progress'>
  /** `DB_TIMEOUT_MS`: bound on connecting, waiting for a pooled connection and each statement [5000 ms]. */
  readonly timeoutMs?: number
  /** The pool of migrations, replica liveness and probes [4]; the journal's own [10]. */
  readonly probePoolMax?: number
  readonly journalPoolMax?: number
  /**
   * The networks served, the first the one the previous release served; each account's replica lock on each network's
   * chain is taken in turn (docs/ARCHITECTURE.md §5.5, §5.8). Rows are filled with their network's chain id.
   */
  readonly networks: ReadonlyArray<StoreNetwork>
  readonly replicaLockEvents?: Partial<ReplicaLockEvents>
  readonly log?: Partial<PostgresStoreLog>
  /** Progress lines while starting, for a person watching. */
  readonly progress?: (line: string) => void
}

/**
 * The store on Postgres: two pools on one database (knex for migrations, liveness and probes; pg's own for the
 * journal's prepared statements), its schema brought up to date (migrations, then the indexes built concurrently),
 * its networks recorded and rows filled with their chain, then each replica lock held. A failure on the way stops what
 * was opened, then rejects (`ReplicaLockHeld`: another replica holds a lock; `UnknownJournalNetworks`).
 */
export const makePostgresStore = async (config: PostgresStoreConfig): Promise<Store> => {
  const { log = {}, progress = () => {}, replicaLockEvents: events = {} } = config
  const timeoutMs = config.timeoutMs ?? defaultJournalTimeoutMs
  const opened = new StopInReverse(log.stopFailed)
  try {
    const databaseUrl =
      config.databaseUrl ??
      (await startDevDatabase({ ...devDatabaseOf(config), progress }, (stop) => opened.push('embedded Postgres', stop)))
    const knex = createKnex({
      connectionString: databaseUrl,
      timeoutMs,
      log: {
        warn: (message: unknown) => log.warn?.(String(message)),
        error: (message: unknown) => log.error?.(String(message)),
        deprecate: () => undefined,
        debug: () => undefined,
      },
      poolMax: config.probePoolMax ?? 4,
    })
    opened.push('database pool', () => knex.destroy())
    const journalPool = createPgPool({
      connectionString: databaseUrl,
      timeoutMs,
      poolMax: config.journalPoolMax,
      onIdleError: log.idleJournalError,
    })
    opened.push('journal pool', () => journalPool.end())
    const outboxPool = createPgPool({
      connectionString: databaseUrl,
      timeoutMs,
      poolMax: 3,
      onIdleError: log.idleJournalError,
    })
    opened.push('webhook outbox pool', () => outboxPool.end())
    // The catalog's writes and its public listings on connections of their own: a burst of listings never delays a
    // settle's write, the probes or the migrations.
    const discoveryWrites = createKnex({ connectionString: databaseUrl, timeoutMs, log: silentKnexLog, poolMax: 2 })
    opened.push('discovery write pool', () => discoveryWrites.destroy())
    const discoveryListings = createKnex({ connectionString: databaseUrl, timeoutMs, log: silentKnexLog, poolMax: 2 })
    opened.push('discovery listing pool', () => discoveryListings.destroy())
    progress('applying database migrations…')
    await migrateToLatest(knex)
    await ensureJournalIndexes(databaseUrl, { connectTimeoutMs: timeoutMs, progress })
    await registerJournalNetworks(knex, config.networks, { progress })
    // Counted from here on: the migrations above are not.
    let otherStatements = 0
    knex.on('query', () => otherStatements++)
    const replicaLocks = await takeReplicaLocks(databaseUrl, config.networks, {
      connectTimeoutMs: timeoutMs,
      events,
      opened,
    })
    let journalStatements = 0
    const journals = makePgJournals(journalPool, { timeoutMs, onStatement: () => journalStatements++ })
    const legacyChainId = config.networks[0]?.chainId
    return {
      journal: journals.journal,
      journalFor: journals.journalFor,
      livenessFor: makeReplicaLiveness(knex, { timeoutMs, ...(legacyChainId === undefined ? {} : { legacyChainId }) }),
      replicaLocks,
      readiness: { pendingMigrations: () => pendingMigrations(knex) },
      metrics: {
        unfinishedSettlements: () => countUnfinishedSettlements(knex),
        journalStatements: () => journalStatements,
        otherStatements: () => otherStatements,
      },
      webhookOutbox: makePgWebhookOutbox(outboxPool),
      discoveryCatalog: makePgDiscoveryCatalog(discoveryWrites, timeoutMs, discoveryListings),
      webhookOutboxOpener: webhookOutboxOpener({ connectionString: databaseUrl, timeoutMs }),
      stop: opened.unwind,
    }
  } catch (error) {
    await opened.unwind()
    throw error
  }
}

const devDatabaseOf = ({ devDatabase }: PostgresStoreConfig) => {
  if (devDatabase === undefined) throw new Error('Postgres store: no database URL and no embedded database to start')
  return devDatabase
}
