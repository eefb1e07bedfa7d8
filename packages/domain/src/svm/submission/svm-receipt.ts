import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { TransferReceipt } from '../../ports/transaction-receipt.js'
import * as E from 'fp-ts/lib/Either.js'
import type { SvmChain, SvmStatus } from '../ports/svm-chain.js'

/**
 * What a signature's status tells as a receipt: its slot as the block (and that block's hash, when read), whether it
 * succeeded (a failed one paid its fee all the same) and why not. Its fee is not known from a status: `gasUsed` 0.
 */
export const receiptOfStatus = (signature: string, status: SvmStatus, blockHash?: string): TransferReceipt => ({
  txHash: signature,
  blockNumber: status.slot,
  ...(blockHash === undefined ? {} : { blockHash }),
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

/**
 * The receipt of a landed transaction with its block's hash: the finality watch follows rows by (slot, hash). A hash
 * the cluster cannot give now leaves it out (the row then stays confirmed until a later pass records it again).
 */
export const landedReceipt = async (
  chain: Pick<SvmChain, 'blockHashAt'>,
  signature: string,
  status: SvmStatus,
): Promise<TransferReceipt> => {
  const hash = await chain.blockHashAt(status.slot)()
  return receiptOfStatus(signature, status, E.isRight(hash) ? hash.right : undefined)
}
