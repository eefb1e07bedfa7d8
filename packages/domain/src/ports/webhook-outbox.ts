/** Settlement events and their webhook deliveries (docs/ARCHITECTURE.md §5.9), kept beside the journal. */
export interface WebhookOutbox {
  /**
   * One delivery row per (unfanned event, subscribed endpoint), the events marked fanned out: one transaction. A new
   * row that is the oldest pending one of its (endpoint, payment) is leased at once until `until`, within its
   * endpoint's room; the others wait for `lease`.
   */
  readonly fanOut: (
    endpoints: ReadonlyArray<FanOutEndpoint>,
    now: Date,
    limit: number,
    until: Date,
  ) => Promise<FannedOut>
  /**
   * Up to `limit` due deliveries to `endpoint`, each the oldest pending one of its payment, leased until `until`:
   * retries, those fan-out left, those whose lease ran out.
   */
  readonly lease: (endpoint: string, now: Date, until: Date, limit: number) => Promise<ReadonlyArray<LeasedDelivery>>
  /**
   * What attempts came to, in one statement; each applied only while its lease is still this one's (one taken over
   * meanwhile is not). The ids of those applied.
   */
  readonly record: (outcomes: ReadonlyArray<AttemptOutcome>) => Promise<ReadonlySet<string>>
  /** Deliveries ended (delivered or dead) before `before`, then events without deliveries, deleted; how many. */
  readonly prune: (before: Date) => Promise<number>
  readonly recent: (query: DeliveryQuery) => Promise<ReadonlyArray<DeliveryRecord>>
  /** The age in ms of the oldest pending delivery at `now` (0: none), and how many are pending. */
  readonly backlog: (now: Date) => Promise<{ readonly oldestMs: number; readonly pending: number }>
}

export interface FanOutEndpoint {
  readonly id: string
  /** Event kinds; empty: every kind. */
  readonly events: ReadonlyArray<string>
  /** How many of its new deliveries fan-out may lease. */
  readonly room: number
  /** The payees whose payments it is told of (lower case); absent or empty: every payee. */
  readonly payees?: ReadonlyArray<string>
  /** The networks (spec name or CAIP-2 id) whose payments it is told of; absent or empty: every network. */
  readonly networks?: ReadonlyArray<string>
}

export interface FannedOut {
  /** How many events were fanned out. */
  readonly fanned: number
  /** The new deliveries leased at once, in order. */
  readonly leased: ReadonlyArray<LeasedDelivery>
  /** The new deliveries left pending for `lease`: their (endpoint, payment)s. */
  readonly waiting: ReadonlyArray<{ readonly endpoint: string; readonly settlementId: string }>
}

export interface SettlementEvent {
  readonly eventId: string
  readonly kind: string
  readonly fromState: string | null
  readonly toState: string
  readonly createdAt: Date
  readonly settlement: Readonly<Record<string, unknown>>
}

export interface LeasedDelivery {
  readonly id: string
  readonly endpoint: string
  /** The payment's row id: its deliveries to one endpoint go one at a time, in order. */
  readonly settlementId: string
  readonly leaseToken: string
  /** Attempts so far, this one included. */
  readonly attempts: number
  readonly event: SettlementEvent
}

export interface AttemptOutcome {
  readonly delivery: LeasedDelivery
  readonly now: Date
  readonly delivered: boolean
  readonly status: number | null
  /** Why it failed; null when delivered. */
  readonly error: string | null
  /** A failure's next try, or null: dead-lettered. */
  readonly retryAt: Date | null
}

export interface DeliveryQuery {
  readonly endpoint?: string
  readonly state?: 'pending' | 'delivered' | 'dead'
  readonly settlementId?: string
  readonly limit: number
}

export interface DeliveryRecord {
  readonly id: string
  readonly endpoint: string
  readonly state: string
  readonly attempts: number
  readonly lastStatus: number | null
  readonly lastError: string | null
  readonly nextAttemptAt: Date
  readonly createdAt: Date
  readonly deliveredAt: Date | null
  readonly eventId: string
  readonly kind: string
  readonly settlementId: string
}

/**
 * How another thread opens this store's outbox (the webhook delivery thread, docs/ARCHITECTURE.md §5.9): the module to
 * import (a URL) and the options its `openWebhookOutbox` takes. Plain data, so that it crosses to a worker thread.
 */
export interface WebhookOutboxOpener {
  readonly module: string
  readonly options: Readonly<Record<string, unknown>>
}

/** An outbox opened by a `WebhookOutboxOpener`'s module, and how to close what it opened. */
export interface OpenedWebhookOutbox {
  readonly outbox: WebhookOutbox
  readonly close: () => Promise<void>
}
