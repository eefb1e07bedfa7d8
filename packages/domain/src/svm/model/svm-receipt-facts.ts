import type { ReceiptFacts, ReceiptLanding } from '../../model/settlement-receipt.js'
import type { Settlement } from '../../ports/settlement-row.js'
import { rowReceiptFacts } from '../../model/row-receipt-facts.js'
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

/** The receipt of an SVM row (`rowReceiptFacts`): an `exact` transfer of exactly what was signed. */
export const receiptOfSvmRow = (network: string, row: Settlement): ReceiptFacts | undefined =>
  rowReceiptFacts(network, row, { maxAmount: row.value, scheme: 'exact', transferMethod: SVM_TRANSFER_METHOD })
