import type { Attempt } from '../ports/settlement-journal.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'

/**
 * A receipt as one row sees it. For a settler batch (docs/ARCHITECTURE.md §5.7) the transaction's status is not the
 * payment's: the row's own item says whether its transfer happened and why not, and the row's gas is its share of the
 * batch's. A batch that reverted as a whole moved nothing for any item. A receipt of a transaction none of the row's
 * attempts names (another party's) is the row's as it is.
 */
export const receiptForRow = (attempts: ReadonlyArray<Pick<Attempt, 'txHash' | 'batchIndex'>>, receipt: TransferReceipt): TransferReceipt => {
  const index = attempts.find((a) => a.txHash.toLowerCase() === receipt.txHash.toLowerCase())?.batchIndex
  if (index === undefined) return receipt
  const { items, ...transaction } = receipt
  const count = BigInt(Math.max(1, items?.length ?? 1))
  const share = { ...transaction, gasUsed: receipt.gasUsed / count }
  if (!receipt.succeeded) return share
  const item = items?.find((i) => i.index === index)
  // The settler reports every item or reverts: a missing outcome means the transaction was not the settler's call.
  if (item === undefined) return { ...share, succeeded: false, revertReason: `the batch's receipt reports no outcome for item ${index}` }
  return item.succeeded
    ? { ...share, succeeded: true }
    : { ...share, succeeded: false, ...(item.revertReason ? { revertReason: item.revertReason } : {}) }
}
