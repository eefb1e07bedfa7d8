import type { Settlement } from '../ports/settlement-row.js'
import type { ReceiptFacts } from './settlement-receipt.js'

/** What only a payment's mechanism knows of its receipt: what the payer signed for, and how it moved. */
export type MechanismReceiptTerms = Pick<ReceiptFacts, 'maxAmount' | 'scheme' | 'transferMethod'>

/**
 * The receipt of a journal row (`network`: its CAIP-2 id) when it names a payment on the chain (`confirmed`, `final`,
 * with a transaction and its block); none otherwise. Its time is the row's: the same row looked up twice gets the same
 * receipt.
 */
export const rowReceiptFacts = (
  network: string,
  row: Settlement,
  terms: MechanismReceiptTerms,
): ReceiptFacts | undefined => {
  if (row.state !== 'confirmed' && row.state !== 'final') return undefined
  if (row.txHash === undefined || row.blockNumber === undefined) return undefined
  return {
    network,
    asset: row.asset,
    payer: row.payer,
    payee: row.payee,
    value: row.value,
    nonce: row.nonce,
    ...terms,
    txHash: row.txHash,
    blockNumber: row.blockNumber,
    ...(row.blockHash === undefined ? {} : { blockHash: row.blockHash }),
    state: row.state,
    recordedAt: row.updatedAt,
  }
}
