/**
 * What the app uses: one factory, its configuration plain, its result the domain's `Store`
 * (`./testing`: what tests use besides it).
 */
export { makePostgresStore, type PostgresStoreConfig, type PostgresStoreLog } from './postgres-store.js'
export type { DevDatabaseOptions } from './dev-database.js'
export { ReplicaLockHeld } from './replica-lock-key.js'
export { UnknownJournalNetworks } from './journal-networks.js'
export type { StoreNetwork } from './replica-locks.js'
