/**
 * What the app uses: one factory, its configuration plain, its result the domain's `Store`
 * (`./testing`: what tests use besides it).
 */
export { makePostgresStore, type PostgresStoreConfig, type PostgresStoreLog } from './postgres-store.js'
export type { DevDatabaseOptions } from './dev/dev-database.js'
export { ReplicaLockHeld } from './replicas/replica-lock-key.js'
export { UnknownJournalNetworks } from './journal/journal-networks.js'
export type { StoreNetwork } from './replicas/replica-locks.js'
