import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { TransferReceipt } from '../../ports/transaction-receipt.js'
import type { SvmStatus } from '../ports/svm-chain.js'

/**
 * What a signature's status tells as a receipt: its slot as the block, whether it succeeded (a failed one paid its
 * fee all the same) and why not. Its fee is not known from a status: `gasUsed` 0.
 */
export const receiptOfStatus = (signature: string, status: SvmStatus): TransferReceipt => ({
  txHash: signature,
  blockNumber: status.slot,
  gasUsed: 0n,
  succeeded: status.err === null,
  ...(status.err === null ? {} : { revertReason: status.err }),
})

/** Counted once a cluster agreed on it: `processed` alone may still be dropped with its fork. */
export const isLanded = (status: SvmStatus | undefined): status is SvmStatus =>
  status !== undefined && status.commitment !== 'processed'

/**
 * A landed transaction's penalties (docs/ARCHITECTURE.md §5.7, as on EVM): one that failed cost our key its fee, so its
 * payer is not sent again for a while; one that succeeded shows its payer pays. Once per transaction.
 */
export const judgeSvmReceipt = (penalties: PenaltyBox | undefined, payer: string, receipt: TransferReceipt): void => {
  if (penalties === undefined || !penalties.firstJudgement(`${receipt.txHash}:alone`)) return
  if (receipt.succeeded) penalties.paid(payer)
  else penalties.refuseSending(payer)
}
