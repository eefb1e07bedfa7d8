/**
 * `@x402-facilitator/adapters-persistence/testing`: what tests and the bench use besides the factory — a migrated
 * database per test, a server of their own, and the pieces they read the store with.
 */
export * from './test-database.js'
export { createKnex, silentKnexLog, type KnexOptions } from './create-knex.js'
export { legacyReplicaLockKey, replicaLockKey } from './replica-lock-key.js'
export { ensureJournalIndexes } from './journal-indexes.js'
export { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded-postgres.js'
export { webhookOutboxOpener } from './webhook-outbox-opener.js'
