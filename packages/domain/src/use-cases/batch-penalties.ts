import type { PenaltyBox } from '../penalties/penalty-box.js'
import type { BatchItem, BatchItemOutcome, TransferReceipt } from '../ports/transfer-submitter.js'

/**
 * A failed item whose call took ≥ 31/32 of the item bound ran out of gas: a wallet that burns all it is given leaves the
 * token the 64th of what it had (EIP-150), which the token hands back unused when it reverts — so "63/64" misses it.
 * Measured on Circle's USDC: a GasTrapWallet's item reported 292 775 of a 300 000 bound (97.6 %); an honest failure
 * (a bad signature, an expired authorization) uses a fraction of it.
 */
export const burntItsBound = (outcome: BatchItemOutcome, itemGasLimit: bigint): boolean =>
  !outcome.succeeded && outcome.notRun !== true && outcome.gasUsed !== undefined && outcome.gasUsed * 32n >= itemGasLimit * 31n

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
    if (burntItsBound(outcome, itemGasLimit)) penalties.refuseBatching(item.authorization.from)
    if (item.payerHasCode === true) penalties.lostGas(outcome.gasUsed)
  }
}
