import type { SvmTransaction } from './svm-transaction.js'

/** What a resource server requires of an `exact` SVM payment (x402 v2 `PaymentRequirements`, as decoded). */
export interface SvmRequirements {
  readonly scheme: string
  /** CAIP-2: `solana:<genesis hash, first 32 characters>`. */
  readonly network: string
  /** The mint (base58). */
  readonly asset: string
  /** In the mint's smallest unit. */
  readonly amount: bigint
  readonly payTo: string
  readonly maxTimeoutSeconds: number
  readonly extra: { readonly feePayer?: string; readonly memo?: string }
}

/** A request as decoded from the wire: the requirements and the payer's partially signed transaction (base64). */
export interface SvmPaymentWire {
  readonly requirements: SvmRequirements
  readonly transaction: string
}

/** An `exact` SVM payment that passed the rules needing no chain: the mechanism's `P`. */
export interface SvmPaymentRequest {
  readonly requirements: SvmRequirements
  /** The payer's transaction as received (base64): what the settle signs as fee payer and sends. */
  readonly wire: string
  readonly transaction: SvmTransaction
  /** The transfer's authority: who pays. */
  readonly payer: string
  /** The payer's token account the transfer draws on. */
  readonly source: string
  /** The fee payer the transaction names (one of this route's keys). */
  readonly feePayer: string
}

/** Is this decoded request an SVM one? (What the route's family reads, by the network's CAIP-2 namespace.) */
export const isSvmNetwork = (network: string): boolean => network.startsWith('solana:')
