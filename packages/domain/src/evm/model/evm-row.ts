import type { Address } from '../../model/payment.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { Authorization, Permit2Transfer } from './evm-payment.js'

declare module '../../ports/settlement-row.js' {
  interface NewSettlement {
    readonly validAfter: bigint
    readonly validBefore: bigint
    /** A Permit2 payment's terms (`value` is what it moves); absent: EIP-3009. */
    readonly permit2?: Permit2Transfer
    /**
     * The contract keeping the nonce: the claim key is (network, nonce space, payer, nonce). Permit2's address for a
     * Permit2 payment (one nonce across every token); absent: the token (EIP-3009).
     */
    readonly nonceSpace?: Address
  }
  interface Attempt {
    /** Replacements share it. */
    readonly accountNonce: bigint
    readonly maxFeePerGas: bigint
    readonly maxPriorityFeePerGas: bigint
  }
  interface Settlement {
    readonly validAfter: bigint
    readonly validBefore: bigint
    /** A Permit2 payment's terms, as claimed (`value` is what it moves); absent: EIP-3009. */
    readonly permit2?: Permit2Transfer
  }
}

/** The authorization a row records, as the submitter signs it (a Permit2 row's `value`: the amount it moves). */
export const authorizationOf = (row: Settlement): Authorization => ({
  from: row.payer,
  to: row.payee,
  value: row.value,
  validAfter: row.validAfter,
  validBefore: row.validBefore,
  nonce: row.nonce,
  ...(row.permit2 === undefined ? {} : { permit2: row.permit2 }),
})
