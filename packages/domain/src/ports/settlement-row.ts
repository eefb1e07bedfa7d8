import type { SettlementState } from '../model/failures.js'
import type { Address, PaymentNonce, FacilitatorPolicy, TxHash } from '../model/payment.js'

/** One authorization: at most one settlement row per key (docs/ARCHITECTURE.md §5). */
export interface SettlementKey {
  readonly network: string
  readonly asset: Address
  readonly payer: Address
  readonly nonce: PaymentNonce
}

/** The key of `payer`'s authorization `nonce` on the policy's network and asset: the one way a key is built. */
export const settlementKey = (
  policy: Pick<FacilitatorPolicy, 'network' | 'asset'>,
  payer: Address,
  nonce: PaymentNonce,
): SettlementKey => ({
  network: policy.network,
  asset: policy.asset.address,
  payer,
  nonce,
})

/**
 * A row as claimed. A payment mechanism adds the terms only it records by declaration merging (the EVM's:
 * evm/model/evm-row.ts).
 */
export interface NewSettlement extends SettlementKey {
  readonly payee: Address
  readonly value: bigint
  readonly signature: string
  /** The payment requirements as received, kept for audit (JSON). */
  readonly requirements: Readonly<Record<string, unknown>>
  /** The facilitator address of the replica that claims the row. */
  readonly owner: Address
  readonly idempotencyKey?: string
  /** The canonical request's digest (docs/ARCHITECTURE.md §5.2): a retry of the same request has the same one. */
  readonly requestHash?: string
  /** Who asked: the API key's id, else the client's address (docs/ARCHITECTURE.md §5.2). */
  readonly caller?: string
  /** An `upto` settle of 0: the row is claimed in its end state `waived`, nothing is sent. */
  readonly waived?: true
}

/** A signed transaction for a settlement (a mechanism adds its own fields, e.g. the EVM's nonce and fees). */
export interface Attempt {
  readonly txHash: TxHash
  /** The signed transaction's bytes: what recovery broadcasts again. */
  readonly raw: string
  readonly sentAt: Date
  /**
   * The row's item index when the transaction is a settler batch (docs/ARCHITECTURE.md §5.7); absent for a lone
   * transfer.
   */
  readonly batchIndex?: number
}

export interface Settlement extends SettlementKey {
  readonly id: string
  /** Incremented each time the row is claimed: a released-and-reclaimed row is not the old claimant's. */
  readonly generation: number
  readonly state: SettlementState
  readonly payee: Address
  readonly value: bigint
  readonly signature: string
  readonly owner: Address
  /** Oldest first. */
  readonly attempts: ReadonlyArray<Attempt>
  /** The mined attempt once confirmed or reverted, else the latest attempt. */
  readonly txHash?: TxHash
  readonly blockNumber?: bigint
  /** The hash of the block holding `txHash` when it was recorded (docs/ARCHITECTURE.md §5.6). */
  readonly blockHash?: TxHash
  /** Settled by another party's transaction: which of its logs paid this row (docs/ARCHITECTURE.md §5.5). */
  readonly paymentLogIndex?: number
  readonly gasUsed?: bigint
  readonly error?: string
  readonly idempotencyKey?: string
  readonly requestHash?: string
  readonly caller?: string
  /**
   * The answer that said `success` for this authorization, set once (`markSuccessAnswered`): no other answer may say
   * it, except a replay under the claim's own Idempotency-Key (docs/ARCHITECTURE.md §5.2).
   */
  readonly successAnsweredBy?: string
  /** When a reorg last sent this claim back to `submitted` (docs/ARCHITECTURE.md §5.6). */
  readonly reorgedAt?: Date
  /** How many times a reorged row's trial refused to sign it again, and since when (`markRefused`; absent: never). */
  readonly refusals?: number
  readonly firstRefusedAt?: Date
  /** A `reverted`, `cancelled` or `released` row's block stopped being watched for reorgs (`endWatch`). */
  readonly watchEndedAt?: Date
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** Where a page of `findUnfinished` ended: the next page starts after this row, in (`updatedAt`, `id`) order. */
export interface UnfinishedCursor {
  readonly updatedAt: Date
  readonly id: string
}

/** Names one claim of a row; transitions are refused for any other. */
export interface ClaimRef {
  readonly id: string
  readonly generation: number
}

/** The claim a row stands in now. */
export const claimRefOf = (row: Pick<Settlement, 'id' | 'generation'>): ClaimRef => ({
  id: row.id,
  generation: row.generation,
})

export type ClaimResult =
  | { readonly _tag: 'Claimed'; readonly settlement: Settlement }
  /** The authorization is being or has been settled (a `released` row is claimed again instead). */
  | { readonly _tag: 'Conflict'; readonly existing: Settlement }

/** A block as a row recorded it: its height and hash (no hash: recorded before hashes were kept). */
export interface RecordedBlock {
  readonly blockNumber: bigint
  readonly blockHash?: TxHash
}

/** How many of an owner's rows still need following (`ownersWithOpenRows`). */
export interface OwnerRows {
  readonly owner: Address
  readonly rows: number
}

/** `stale`: the row was not in the expected state (or claim) any more; nothing was written. */
export type Transition = 'applied' | 'stale'
/** `markSettledElsewhere`'s answer: also `payment-log-taken`, the log that paid is another row's payment already. */
export type SettledElsewhereTransition = Transition | 'payment-log-taken'

/**
 * `markMined` with an answer id: its transition, and whether the row's success mark is that answer's
 * (docs/ARCHITECTURE.md §5.2).
 */
export interface MinedAndMarked {
  readonly transition: Transition
  readonly successMarked: boolean
}
