/** A `0x`-prefixed hex string. Addresses and hashes inside the domain are always lower-case. */
export type Hex = `0x${string}`
/** `0x` + 40 lower-case hex digits. */
export type Address = Hex
/** `0x` + 64 lower-case hex digits. */
export type Bytes32 = Hex

/** Tokens sent here are burnt: never a recipient (docs/ARCHITECTURE.md §3 rule 4a). */
export const ZERO_ADDRESS: Address = `0x${'0'.repeat(40)}`

export interface PaymentRequirements {
  readonly x402Version: number
  readonly scheme: string
  readonly network: string
  readonly amount: bigint
  readonly asset: Address
  readonly payTo: Address
  readonly maxTimeoutSeconds: number
}

/**
 * What one route of this facilitator settles: one network, one token (docs/ARCHITECTURE.md §1). A payment mechanism
 * adds its own settings by declaration merging (the EVM's: evm/model/evm-payment.ts).
 */
export interface FacilitatorPolicy {
  readonly network: string
  /** Every network the facilitator serves (spec names), this one among them: what rule 2b names [this one]. */
  readonly servedNetworks?: ReadonlyArray<string>
  readonly asset: TokenInfo
  /** The address that submits transactions and pays gas (this replica's). */
  readonly facilitator: Address
  /** `now + margin < validBefore` leaves time for the transaction to be mined (docs/ARCHITECTURE.md §3 rule 6). */
  readonly validityMarginSeconds: bigint
  /** Upper bound on how long settle waits for a receipt, whatever `maxTimeoutSeconds` says. */
  readonly receiptTimeoutMs: number
  /** How long an `Idempotency-Key` keeps its stored outcome [24 h]. */
  readonly idempotencyWindowMs?: number
  /** The smallest required amount settled, in the token's smallest unit (`MIN_AMOUNT`, rule 5b) [1]. */
  readonly minAmount?: bigint
}

/** Rule 5b's minimum: never below 1, so a zero amount is refused whatever the policy says. */
export const effectiveMinAmount = (policy: FacilitatorPolicy): bigint =>
  policy.minAmount !== undefined && policy.minAmount > 1n ? policy.minAmount : 1n

export interface TokenInfo {
  readonly address: Address
  readonly symbol: string
  readonly decimals: number
}
