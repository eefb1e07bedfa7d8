import type { WebhookOutbox, WebhookOutboxOpener } from './webhook-outbox.js'
import type { DiscoveryCatalog } from '../discovery/discovery-catalog.js'
import type { Address } from '../model/payment.js'
import type { ReplicaLiveness } from './replica-liveness.js'
import type { SettlementJournal } from './settlement-journal.js'

/** The states a row leaves again; `final`, `reverted` and `released` rows only accumulate. */
export const UNFINISHED_STATES = ['claimed', 'submitted', 'confirmed'] as const
export type UnfinishedState = (typeof UNFINISHED_STATES)[number]

/** What `/readyz` reads of the store, in the background (docs/ARCHITECTURE.md §6); a failed read rejects. */
export interface StoreReadiness {
  /** Schema changes this code knows that the store has not applied. */
  readonly pendingMigrations: () => Promise<ReadonlyArray<string>>
}

/** What `/metrics` reads of the store: counts read in the background, statement counters read at each scrape. */
export interface StoreMetrics {
  /** Rows per unfinished state; also `/readyz`'s proof that the store answers. */
  readonly unfinishedSettlements: () => Promise<Record<UnfinishedState, number>>
  /** Statements the journal sent so far (calls of one tick share one). */
  readonly journalStatements: () => number
  /** Statements sent so far by the rest of the store (migrations, replica liveness, these probes). */
  readonly otherStatements: () => number
}

/**
 * One signing account's replica lock on one chain (docs/ARCHITECTURE.md §5.5): while held, no other replica recovers
 * its rows of that chain.
 */
export interface ReplicaLockHold {
  /** The chain's CAIP-2 id. */
  readonly chainId: string
  readonly account: Address
  readonly held: () => boolean
}

/**
 * What one route's journal sees (docs/ARCHITECTURE.md §5, "Networks"): the rows it claims record the chain, and every
 * owner-keyed read or write (finality, blocks to watch, recovery's unfinished rows, owners with open rows) keeps to
 * this chain and token; an account's nonces in flight keep to the chain (its tokens share one nonce sequence).
 */
export interface JournalScope {
  /** CAIP-2, e.g. `eip155:84532`. */
  readonly chainId: string
  readonly asset: Address
}

/** What the store tells of each replica lock as it happens, for the app to stop and resume that key's settling. */
export interface ReplicaLockEvents {
  /** Lost with its connection: another replica may take over. */
  readonly onLost: (chainId: string, account: Address, reason: string) => void
  /** A try to take it back failed; `heldElsewhere`: another session holds it. */
  readonly onRetryFailed: (chainId: string, account: Address, reason: string, heldElsewhere: boolean) => void
  /** Held again. */
  readonly onRegained: (chainId: string, account: Address) => void
}

/**
 * Everything the app needs of a store, as one adapter's factory makes it (`makePostgresStore`): swapping the store is
 * swapping what makes this.
 */
export interface Store {
  /** Every row, whatever its chain and token: look-ups by key, transaction hash and idempotency key. */
  readonly journal: SettlementJournal
  /** One route's journal; all share one pool and one statement batching. */
  readonly journalFor: (scope: JournalScope) => SettlementJournal
  /** Whether the owner of a row of this chain (its CAIP-2 id) still runs. */
  readonly livenessFor: (chainId: string) => ReplicaLiveness
  /** Per network and signing account, in the order asked for, each held when the store was made. */
  readonly replicaLocks: ReadonlyArray<ReplicaLockHold>
  readonly readiness: StoreReadiness
  readonly metrics: StoreMetrics
  /** Settlement events and webhook deliveries (docs/ARCHITECTURE.md §5.9); absent: the store keeps none. */
  readonly webhookOutbox?: WebhookOutbox
  /** The discovery catalog of paid resources (docs/ARCHITECTURE.md §5.10); absent: the store keeps none. */
  readonly discoveryCatalog?: DiscoveryCatalog
  /** How the webhook delivery thread opens the same outbox on connections of its own; absent: it cannot. */
  readonly webhookOutboxOpener?: WebhookOutboxOpener
  /** Releases the locks and closes what the store opened, in reverse; idempotent. */
  readonly stop: () => Promise<void>
}
