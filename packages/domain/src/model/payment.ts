/**
 * An address, as its chain family spells it canonically (the EVM's: `0x` + 40 lower-case hex digits,
 * evm/model/evm-hex.ts): the family's codecs check it; the core only compares and stores it.
 */
export type Address = string
/** A payment's nonce within its payer, as its chain family spells it (the EVM's: 32 bytes, `0x` + 64 hex digits). */
export type PaymentNonce = string
/** A transaction's id or a block's hash, as its chain family spells it (the EVM's: `0x` + 64 hex digits). */
export type TxHash = string

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
