import type { PenaltyBox } from '../penalties/penalty-box.js'
import type { BatchItem, TransferReceipt } from '../ports/transfer-submitter.js'

/**
 * What a mined settler batch tells the penalty box (docs/ARCHITECTURE.md §5.7): a failed item whose call took (nearly)
 * all the gas it could have ran out of gas, and its payer is not batched for a while; the gas of every failed item of
 * a payer with code is gas lost to payers with code. `itemGasLimit`: the settler's per-item bound.
 */
export const noteBatchOutcomes = (penalties: PenaltyBox | undefined, items: ReadonlyArray<BatchItem>, receipt: TransferReceipt, itemGasLimit: bigint): void => {
  if (penalties === undefined) return
  for (const outcome of receipt.items ?? []) {
    const item = items[outcome.index]
    if (item === undefined || outcome.succeeded || outcome.notRun === true || outcome.gasUsed === undefined) continue
    // The token's call gets the bound; a callee that burns all it is given leaves the token its 1/64 at most.
    if (outcome.gasUsed * 64n >= itemGasLimit * 63n) penalties.refuseBatching(item.authorization.from)
    if (item.payerHasCode === true) penalties.lostGas(outcome.gasUsed)
  }
}
