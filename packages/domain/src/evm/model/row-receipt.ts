import type { ReceiptFacts } from '../../model/settlement-receipt.js'
import type { Settlement } from '../../ports/settlement-row.js'
import { rowReceiptFacts } from '../../model/row-receipt-facts.js'

/**
 * The receipt of an EVM row (`rowReceiptFacts`): a Permit2 payment's maximum and scheme are its terms'; none for an
 * `upto` settle of 0 (nothing moved: the row is `waived`, never confirmed).
 */
export const receiptOfRow = (network: string, row: Settlement): ReceiptFacts | undefined => {
  const { permit2 } = row
  return rowReceiptFacts(network, row, {
    maxAmount: permit2?.permitted ?? row.value,
    scheme: permit2?.scheme ?? 'exact',
    transferMethod: permit2 === undefined ? 'eip3009' : 'permit2',
  })
}
