/**
 * `@x402-facilitator/adapters-persistence/testing`: what tests and the bench use besides the factory — a migrated
 * database per test, a server of their own, and the pieces they read the store with.
 */
export * from './test-database.js'
export { createKnex, silentKnexLog, type KnexOptions } from '../database/create-knex.js'
export { legacyReplicaLockKey, replicaLockKey } from '../replicas/replica-lock-key.js'
export { ensureJournalIndexes } from '../journal/journal-indexes.js'
export { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from '../dev/embedded-postgres.js'
export { webhookOutboxOpener } from '../webhooks/webhook-outbox-opener.js'
