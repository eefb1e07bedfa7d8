import type { TxHash } from '../model/payment.js'

/**
 * How an authorization ended on-chain, told by the token's own events: `used` (`AuthorizationUsed`, a transfer) or
 * `cancelled` (`AuthorizationCanceled`). `authorizationState` is true after either, so only the logs tell them apart.
 */
export interface AuthorizationEnd extends MinedTransaction {
  readonly how: 'used' | 'cancelled'
}

/** A transaction mined on the chain: its hash and block. */
export interface MinedTransaction {
  readonly txHash: TxHash
  readonly blockNumber: bigint
  readonly blockHash?: TxHash
  /**
   * For another party's transaction that paid a payment: the position, among that transaction's logs, of the token's
   * `Transfer` that paid it. One such log pays one payment: the journal credits it to one row (docs/ARCHITECTURE.md §5.5).
   */
  readonly paymentLogIndex?: number
}

export interface TransferReceipt {
  readonly txHash: TxHash
  readonly blockNumber: bigint
  /** The hash of the block that holds it: how a reorg is told (docs/ARCHITECTURE.md §5.6). */
  readonly blockHash?: TxHash
  readonly gasUsed: bigint
  readonly succeeded: boolean
  /** Decoded revert message, when the node gives one. */
  readonly revertReason?: string
  /**
   * A settler batch's per-payment outcomes, from its `ItemSettled` events (docs/ARCHITECTURE.md §5.7), by item index;
   * absent for a lone transfer. Read a row's own outcome with `receiptForAttempt`.
   */
  readonly items?: ReadonlyArray<BatchItemOutcome>
}

/** One payment of a settler batch, as the receipt tells it. */
export interface BatchItemOutcome {
  readonly index: number
  readonly succeeded: boolean
  /** The token's revert message (or its raw revert data) when the item failed. */
  readonly revertReason?: string
  /**
   * The settler stopped before this item (too little gas left for its bound, docs/ARCHITECTURE.md §5.7): it was not
   * run, nothing of it moved, its authorization is untouched.
   */
  readonly notRun?: true
  /** A failed item's gas (its token call), when the settler reports it. */
  readonly gasUsed?: bigint
}
