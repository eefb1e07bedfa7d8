import type { ReceiptFacts, ReceiptLanding } from '../../model/settlement-receipt.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { SvmPaymentWire } from './svm-payment.js'

/** How an `exact` SVM payment moves the mint: the token program's `TransferChecked`. */
export const SVM_TRANSFER_METHOD = 'transferChecked'

/**
 * The receipt of a settle's success from the SVM request it settled; `nonce`: the payment's identity, its message's
 * digest (the row's nonce).
 */
export const receiptOfSvmRequest = (
  network: string,
  { requirements }: SvmPaymentWire,
  nonce: string,
  { blockHash, ...landed }: ReceiptLanding,
): ReceiptFacts => ({
  network,
  asset: requirements.asset,
  ...landed,
  ...(blockHash === undefined ? {} : { blockHash }),
  payee: requirements.payTo,
  value: requirements.amount,
  maxAmount: requirements.amount,
  nonce,
  scheme: 'exact',
  transferMethod: SVM_TRANSFER_METHOD,
})

/** The receipt of an SVM row that names its transaction and block (`confirmed`, `final`); none otherwise. */
export const receiptOfSvmRow = (network: string, row: Settlement): ReceiptFacts | undefined => {
  if (row.state !== 'confirmed' && row.state !== 'final') return undefined
  if (row.txHash === undefined || row.blockNumber === undefined) return undefined
  return {
    network,
    asset: row.asset,
    payer: row.payer,
    payee: row.payee,
    value: row.value,
    maxAmount: row.value,
    nonce: row.nonce,
    scheme: 'exact',
    transferMethod: SVM_TRANSFER_METHOD,
    txHash: row.txHash,
    blockNumber: row.blockNumber,
    ...(row.blockHash === undefined ? {} : { blockHash: row.blockHash }),
    state: row.state,
    recordedAt: row.updatedAt,
  }
}
