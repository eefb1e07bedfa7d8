import type { SettleRefusal, VerifyFailure } from './model/failures.js'
import type { TokenInfo } from './model/payment.js'
import { explainRefusal, type Explained, type MechanismExplainer } from './model/reason-codes.js'
import { explainEvmFailure } from './evm/model/evm-explainer.js'
import { explainSvmFailure, isSvmFailure } from './svm/model/svm-failures.js'
import type { AnyPaymentRequest } from './evm/model/permit2-payment.js'
import type { SvmPaymentWire } from './svm/model/svm-payment.js'
import type { ReceiptFacts } from './model/settlement-receipt.js'
import type { Settlement } from './ports/settlement-row.js'
import { receiptOfRow } from './evm/model/row-receipt.js'
import { receiptOfSvmRow } from './svm/model/svm-receipt-facts.js'
import { receiptOfEvent } from './evm/model/event-receipt.js'
import { receiptOfSvmEvent } from './svm/model/svm-event-receipt.js'
import type { SettlementEvent } from './ports/webhook-outbox.js'

/** A decoded verify or settle request of any family: the EVM's (EIP-3009, Permit2) or the SVM's (a transaction). */
export type FamilyRequest = AnyPaymentRequest | SvmPaymentWire

export const isSvmRequest = (request: FamilyRequest): request is SvmPaymentWire => 'transaction' in request
export const isEvmRequest = (request: FamilyRequest): request is AnyPaymentRequest => !isSvmRequest(request)

/**
 * The chain families this domain holds (docs/ARCHITECTURE.md §1), where one answer must cover all of them: each
 * family's own refusals are worded by its own explainer.
 */
export const explainMechanismFailure: MechanismExplainer = (failure, units) =>
  isSvmFailure(failure) ? explainSvmFailure(failure) : explainEvmFailure(failure, units)

/** Any refusal worded: the core's, and each family's own. */
export const explainAnyRefusal = (
  failure: VerifyFailure | SettleRefusal,
  { asset }: { readonly asset: TokenInfo },
): Explained => explainRefusal(failure, { asset, explainMechanism: explainMechanismFailure })

/** The receipt of a journal row of any family (`network`: its CAIP-2 id), when it names a payment on the chain. */
export const receiptOfFamilyRow = (network: string, row: Settlement): ReceiptFacts | undefined =>
  network.startsWith('solana:') ? receiptOfSvmRow(network, row) : receiptOfRow(network, row)

/** The receipt a settlement event of any family states, when it names a payment on the chain. */
export const receiptOfFamilyEvent = (event: SettlementEvent): ReceiptFacts | undefined =>
  String(event.settlement.chainId ?? '').startsWith('solana:') ? receiptOfSvmEvent(event) : receiptOfEvent(event)
