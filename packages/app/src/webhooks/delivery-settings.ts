/** The delivery worker's settings (docs/ARCHITECTURE.md §5.9; WEBHOOK_* in CONFIGURATION.md). */
export interface DeliverySettings {
  readonly leaseMs: number
  readonly retryBaseMs: number
  readonly retryMaxMs: number
  readonly deadAfterMs: number
  readonly pruneAfterMs: number
  /** Deliveries in flight per endpoint: a dead endpoint holds only its own. */
  readonly concurrency: number
  readonly pollMs: number
}
