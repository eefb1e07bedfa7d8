export { createKnex, silentKnexLog, type KnexOptions } from './create-knex.js'
export { createPgPool, type PgPool, type PgPoolOptions } from './create-pg-pool.js'
export { defaultJournalTimeoutMs } from './with-timeout.js'
export { makePgSettlementJournal, type PgSettlementJournalOptions } from './pg-settlement-journal.js'
export { migrateToLatest, type MigrateOptions, type MigrateResult } from './migrate-to-latest.js'
export { migrations, migrationSource, type Migration } from './migrations/index.js'
export {
  acquireReplicaLock,
  advisoryLockKey,
  ReplicaLockHeld,
  replicaLockKey,
  type ReplicaLock,
  type ReplicaLockOptions,
} from './advisory-lock.js'
export { isReplicaAlive, makeReplicaLiveness } from './replica-liveness.js'
export {
  defaultEmbeddedDataDir,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from './embedded-postgres.js'
export { findFreePort } from './embedded-postgres-host.js'
export { countUnfinishedSettlements, pendingMigrations } from './journal-health.js'
export { startDevDatabase, type DevDatabaseOptions } from './dev-database.js'
/** What the app uses: one factory, its configuration plain, its result the domain's `Store`. */
export { makePostgresStore, type PostgresStoreConfig, type PostgresStoreLog } from './postgres-store.js'
