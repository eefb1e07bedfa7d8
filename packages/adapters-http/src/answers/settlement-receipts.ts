import {
  isSvmRequest,
  receiptOfFamilyRow,
  receiptOfRequest,
  receiptOfSvmRequest,
  type FamilyRequest,
  type ReceiptFacts,
  type SettleOutcome,
  type Settlement,
  type SignedReceipt,
} from '@x402-facilitator/domain'
import type { HttpDeps } from '../http-deps.js'
import { svmMessageDigest } from './svm-message-digest.js'

type ReceiptDeps = Pick<HttpDeps, 'attestor' | 'networks' | 'logger'>

const caip2Of = (deps: ReceiptDeps, network: string): string | undefined =>
  deps.networks.find((served) => served.name === network)?.caip2

/**
 * The payment happened whatever the signer says: a receipt that cannot be signed leaves the answer without one (and
 * is logged), never turns it into a 5xx.
 */
const signed = (deps: ReceiptDeps, facts: ReceiptFacts | undefined): SignedReceipt | undefined => {
  if (facts === undefined || deps.attestor === undefined) return undefined
  try {
    return deps.attestor.attest(facts)
  } catch (error) {
    deps.logger.error({ err: error, txHash: facts.txHash }, 'settlement receipt not signed')
    return undefined
  }
}

/** docs/ARCHITECTURE.md §4: the signed receipt of a settle's success (`final` when it was answered final). */
export const receiptOfSettle = (
  deps: ReceiptDeps,
  request: FamilyRequest,
  outcome: SettleOutcome,
): SignedReceipt | undefined => {
  if (outcome._tag !== 'Settled' || deps.attestor === undefined) return undefined
  const network = caip2Of(deps, request.requirements.network)
  if (network === undefined) return undefined
  const { payer, txHash, blockNumber, blockHash } = outcome
  const landing = {
    payer,
    txHash,
    blockNumber,
    state: outcome.final ? 'final' : 'confirmed',
    ...(blockHash ? { blockHash } : {}),
  } as const
  const recordedAt = outcome.recordedAt === undefined ? {} : { recordedAt: outcome.recordedAt }
  if (!isSvmRequest(request)) return signed(deps, { ...receiptOfRequest(network, request, landing), ...recordedAt })
  const nonce = svmMessageDigest(request.transaction)
  return nonce === undefined
    ? undefined
    : signed(deps, { ...receiptOfSvmRequest(network, request, nonce, landing), ...recordedAt })
}

/** The signed receipt of a looked-up row that names a payment on the chain (`confirmed` or `final`). */
export const receiptOfSettlement = (deps: ReceiptDeps, row: Settlement): SignedReceipt | undefined => {
  const network = caip2Of(deps, row.network)
  return network === undefined ? undefined : signed(deps, receiptOfFamilyRow(network, row))
}
