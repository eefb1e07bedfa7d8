import type { Address, PaymentNonce, TxHash } from './payment.js'

/** A receipt is issued for a payment on the chain: answered success (`confirmed`), or `CONFIRMATIONS` deep (`final`). */
export type ReceiptState = 'confirmed' | 'final'

/**
 * What a signed settlement receipt states (docs/ARCHITECTURE.md §4): one payment moved on-chain. `value` is what
 * moved, `maxAmount` what the payer signed for (they differ only for `upto`).
 */
export interface ReceiptFacts {
  /** CAIP-2 (`eip155:<chainId>`): its chain id is the receipt's EIP-712 domain's. */
  readonly network: string
  readonly asset: Address
  readonly payer: Address
  readonly payee: Address
  readonly value: bigint
  readonly maxAmount: bigint
  readonly nonce: PaymentNonce
  readonly scheme: 'exact' | 'upto'
  /** How the payment moved the token, in its mechanism's words (the EVM's: `eip3009`, `permit2`). */
  readonly transferMethod: string
  readonly txHash: TxHash
  readonly blockNumber: bigint
  /** Absent when the node gave none: the receipt then names the zero hash. */
  readonly blockHash?: TxHash
  readonly state: ReceiptState
  /** When the journal recorded that state (a row's `updatedAt`); absent: now, as the receipt is signed. */
  readonly recordedAt?: Date
}

/** Where a payment landed, as a settle's success or a journal row names it. */
export interface ReceiptLanding {
  readonly payer: Address
  readonly txHash: TxHash
  readonly blockNumber: bigint
  readonly blockHash?: TxHash
  readonly state: ReceiptState
}
