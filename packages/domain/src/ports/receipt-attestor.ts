import type { Address } from '../model/payment.js'
import type { ReceiptFacts } from '../model/settlement-receipt.js'

/**
 * A receipt as it travels: its whole EIP-712 typed data beside the signature, so any EIP-712 library verifies it
 * against the published attestation address knowing nothing of this service (integers as decimal strings).
 */
export interface SignedReceipt {
  readonly domain: { readonly name: string; readonly version: string; readonly chainId: number }
  readonly types: Readonly<Record<string, ReadonlyArray<{ readonly name: string; readonly type: string }>>>
  readonly primaryType: string
  readonly message: Readonly<Record<string, string>>
  readonly signature: string
}

/** Signs settlement receipts with the attestation key (docs/ARCHITECTURE.md §4), never a gas key. */
export interface ReceiptAttestor {
  /** The attestation key's account: what `/supported` publishes as `attestation.current`. */
  readonly current: Address
  /** Accounts of earlier attestation keys whose receipts are still honoured. */
  readonly retired: ReadonlyArray<Address>
  readonly attest: (facts: ReceiptFacts) => SignedReceipt
}
