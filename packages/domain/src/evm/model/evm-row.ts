import type { Attempt, Settlement } from '../../ports/settlement-row.js'
import type { Authorization, Permit2Transfer } from './evm-payment.js'
import type { Bytes32, EvmAddress as Address, Hex } from './evm-hex.js'

declare module '../../ports/settlement-row.js' {
  interface NewSettlement {
    /** The payment's validity window (unix seconds), when its family has one (the EVM's always does). */
    readonly validAfter?: bigint
    readonly validBefore?: bigint
    /** A Permit2 payment's terms (`value` is what it moves); absent: EIP-3009. */
    readonly permit2?: Permit2Transfer
    /**
     * The contract keeping the nonce: the claim key is (network, nonce space, payer, nonce). Permit2's address for a
     * Permit2 payment (one nonce across every token); absent: the token (EIP-3009).
     */
    readonly nonceSpace?: Address
  }
  interface Attempt {
    /** An EVM transaction's account nonce (its replacements share it) and fees: always set on an EVM attempt. */
    readonly accountNonce?: bigint
    readonly maxFeePerGas?: bigint
    readonly maxPriorityFeePerGas?: bigint
  }
  interface Settlement {
    readonly validAfter?: bigint
    readonly validBefore?: bigint
    /** A Permit2 payment's terms, as claimed (`value` is what it moves); absent: EIP-3009. */
    readonly permit2?: Permit2Transfer
  }
}

/** An attempt as this mechanism recorded it: its hash and bytes are EVM hex. */
export interface EvmAttempt extends Attempt {
  readonly txHash: Hex
  readonly raw: Hex
  readonly accountNonce: bigint
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

/** A row an EVM route claimed: its values EVM-spelled, as the journal decodes them (canonical, lower case). */
export interface EvmSettlement extends Settlement {
  readonly validAfter: bigint
  readonly validBefore: bigint
  readonly asset: Address
  readonly payer: Address
  readonly payee: Address
  readonly owner: Address
  readonly nonce: Bytes32
  readonly signature: Hex
  readonly attempts: ReadonlyArray<EvmAttempt>
  readonly txHash?: Hex
  readonly blockHash?: Hex
}

/** The core hands the mechanism back the rows it claimed: read in the EVM's spelling they were written in. */
export const evmRow = (row: Settlement): EvmSettlement => row as EvmSettlement

/** Bytes the core hands back that this mechanism gave it (a transaction's hash, a signature): EVM hex. */
export const evmHex = (value: string): Hex => value as Hex

/** The authorization a row records, as the submitter signs it (a Permit2 row's `value`: the amount it moves). */
export const authorizationOf = (row: EvmSettlement): Authorization => ({
  from: row.payer,
  to: row.payee,
  value: row.value,
  validAfter: row.validAfter,
  validBefore: row.validBefore,
  nonce: row.nonce,
  ...(row.permit2 === undefined ? {} : { permit2: row.permit2 }),
})
