import type { Address, Bytes32, Hex, TransferMethod } from './payment.js'
import type { Settlement } from '../ports/settlement-row.js'

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
  readonly nonce: Bytes32
  readonly scheme: 'exact' | 'upto'
  readonly transferMethod: TransferMethod
  readonly txHash: Hex
  readonly blockNumber: bigint
  /** Absent when the node gave none: the receipt then names the zero hash. */
  readonly blockHash?: Hex
  readonly state: ReceiptState
  /** When the journal recorded that state (a row's `updatedAt`); absent: now, as the receipt is signed. */
  readonly recordedAt?: Date
}

/** Where a payment landed, as a settle's success or a journal row names it. */
export interface ReceiptLanding {
  readonly payer: Address
  readonly txHash: Hex
  readonly blockNumber: bigint
  readonly blockHash?: Hex
  readonly state: ReceiptState
}

/**
 * The receipt of a journal row (`network`: its CAIP-2 id) when it names a payment on the chain (`confirmed`, `final`,
 * with a transaction and its block); none otherwise, and none for an `upto` settle of 0 (nothing moved). Its time is
 * the row's: the same row looked up twice gets the same receipt.
 */
export const receiptOfRow = (network: string, row: Settlement): ReceiptFacts | undefined => {
  if (row.state !== 'confirmed' && row.state !== 'final') return undefined
  if (row.txHash === undefined || row.blockNumber === undefined) return undefined
  const { permit2 } = row
  return {
    network,
    asset: row.asset,
    payer: row.payer,
    payee: row.payee,
    value: row.value,
    maxAmount: permit2?.permitted ?? row.value,
    nonce: row.nonce,
    scheme: permit2?.scheme ?? 'exact',
    transferMethod: permit2 === undefined ? 'eip3009' : 'permit2',
    txHash: row.txHash,
    blockNumber: row.blockNumber,
    ...(row.blockHash === undefined ? {} : { blockHash: row.blockHash }),
    state: row.state,
    recordedAt: row.updatedAt,
  }
}
