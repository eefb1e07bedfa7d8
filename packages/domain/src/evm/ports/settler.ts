import type { EvmAddress as Address, Hex } from '../model/evm-hex.js'

/**
 * The batch settler settles may go through (docs/ARCHITECTURE.md §5.7), as the start-up checks found it (the chain
 * adapter's `readiness.checkSettler`, the app's start-up checks).
 */
export interface Settler {
  readonly address: Address
  /** `BATCH_MAX_ITEMS`: the most payments one `settle` call carries. */
  readonly maxItems: number
  /** `BATCH_WINDOW_MS`: how long a payment may wait for others while a transaction of ours is in flight. */
  readonly windowMs: number
}

/** What each signing key's lane reads of the node beside the ports (use-cases/lanes/key-health.ts, key-guard.ts). */
export interface KeyReads {
  /** `account`'s native balance (what pays its gas), in wei. */
  readonly gasBalance: (account: Address) => Promise<bigint>
  /** The node's gas price, in wei. */
  readonly gasPrice: () => Promise<bigint>
  /** Whether the batch settler `settler` lets `account` call `settle` (`isSettler`). */
  readonly settlerAllows: (settler: Address, account: Address) => Promise<boolean>
  /** The gas limit a prepared transaction was signed with (its `raw`), when it says one. */
  readonly signedGasLimit: (raw: Hex) => bigint | undefined
}
