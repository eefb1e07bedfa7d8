import type { Attempt } from '../ports/settlement-row.js'
import type { MinedTransaction, TransferReceipt } from '../ports/transaction-receipt.js'

/** What a row settled by another transaction records: who used the authorization (and, when ours reverted, ours). */
export const settledElsewhereNote = (other: MinedTransaction, ours?: TransferReceipt): string =>
  `authorization used by transaction ${other.txHash} (block ${other.blockNumber})` +
  (ours === undefined ? '' : `; ours ${ours.txHash} reverted`)

/**
 * A receipt as one row sees it. For a settler batch (docs/ARCHITECTURE.md §5.7) the transaction's status is not the
 * payment's: the row's own item says whether its transfer happened and why not, and the row's gas is its share of the
 * batch's. A batch that reverted as a whole moved nothing for any item. A receipt of a transaction none of the row's
 * attempts names (another party's) is the row's as it is.
 */
export const receiptForRow = (
  attempts: ReadonlyArray<Pick<Attempt, 'txHash' | 'batchIndex'>>,
  receipt: TransferReceipt,
): TransferReceipt => {
  const index = batchIndexIn(attempts, receipt)
  if (index === undefined) return receipt
  const { items, ...transaction } = receipt
  const count = BigInt(Math.max(1, items?.filter((i) => i.notRun !== true).length ?? 1))
  const share = { ...transaction, gasUsed: receipt.gasUsed / count }
  if (!receipt.succeeded) return share
  const item = items?.find((i) => i.index === index)
  // The settler reports every item or reverts: a missing outcome means the transaction was not the settler's call.
  if (item === undefined)
    return { ...share, succeeded: false, revertReason: `the batch's receipt reports no outcome for item ${index}` }
  if (item.notRun === true) return { ...share, succeeded: false, revertReason: notRunReason(receipt) }
  return item.succeeded
    ? { ...share, succeeded: true }
    : { ...share, succeeded: false, ...(item.revertReason ? { revertReason: item.revertReason } : {}) }
}

/**
 * A settler batch that reverted as a whole (it refuses to start an item with less gas left than the item's bound, so a
 * payer wallet burning more than its trial did can run the batch out): no item ran, nothing moved, and no attempt of
 * the row can be mined any more — the row is released, not `reverted`, so its payment can be settled again.
 */
export const batchRevertedWhole = (
  attempts: ReadonlyArray<Pick<Attempt, 'txHash' | 'batchIndex'>>,
  receipt: TransferReceipt,
): boolean =>
  !receipt.succeeded &&
  attempts.some((a) => a.batchIndex !== undefined && a.txHash.toLowerCase() === receipt.txHash.toLowerCase())

/** The batch index of the row's item in this receipt's transaction, when the row's attempt there was a batch's. */
const batchIndexIn = (
  attempts: ReadonlyArray<Pick<Attempt, 'txHash' | 'batchIndex'>>,
  receipt: TransferReceipt,
): number | undefined => attempts.find((a) => a.txHash.toLowerCase() === receipt.txHash.toLowerCase())?.batchIndex

/**
 * The settler stopped before the row's item (too little gas left for its bound: it stops, it does not revert,
 * docs/ARCHITECTURE.md §5.7), or the batch reverted whole (an earlier settler): the item was not run, nothing of it
 * moved, so the row is released (never `reverted`) and its payment may be settled again, alone.
 */
export const rowNotRunInBatch = (
  attempts: ReadonlyArray<Pick<Attempt, 'txHash' | 'batchIndex'>>,
  receipt: TransferReceipt,
): boolean => {
  if (batchRevertedWhole(attempts, receipt)) return true
  const index = batchIndexIn(attempts, receipt)
  return index !== undefined && receipt.items?.some((i) => i.index === index && i.notRun === true) === true
}

export const notRunReason = (receipt: TransferReceipt): string =>
  receipt.succeeded
    ? `the settler batch ${receipt.txHash} stopped before this payment (too little gas left for its bound): it ` +
      `was not run, nothing of it was transferred`
    : batchRevertedReason(receipt)

export const batchRevertedReason = (receipt: TransferReceipt): string =>
  `the settler batch ${receipt.txHash} reverted as a whole` +
  (receipt.revertReason ? ` (${receipt.revertReason})` : '') +
  ': nothing was transferred'
