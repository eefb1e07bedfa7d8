import type { ReceiptFacts } from '../../model/settlement-receipt.js'
import type { Settlement } from '../../ports/settlement-row.js'

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
