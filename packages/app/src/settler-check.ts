import type { Address } from '@x402-facilitator/domain'

/**
 * The batch settler settles may go through (docs/ARCHITECTURE.md §5.7), as the start-up checks found it (the chain
 * adapter's `readiness.checkSettler`, start-up-checks.ts).
 */
export interface Settler {
  readonly address: Address
  /** `BATCH_MAX_ITEMS`: the most payments one `settle` call carries. */
  readonly maxItems: number
  /** `BATCH_WINDOW_MS`: how long a payment may wait for others while a transaction of ours is in flight. */
  readonly windowMs: number
}
