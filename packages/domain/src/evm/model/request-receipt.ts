import type { ReceiptFacts, ReceiptLanding } from '../../model/settlement-receipt.js'
import { isPermit2Request, type AnyPaymentRequest } from './permit2-payment.js'

const isUptoRequest = (request: AnyPaymentRequest): boolean =>
  isPermit2Request(request) && (request.payload.scheme === 'upto' || request.requirements.scheme === 'upto')

/** The receipt of a settle's success, from the request it settled (`upto`: its `amount` is what was charged). */
export const receiptOfRequest = (
  network: string,
  request: AnyPaymentRequest,
  landing: ReceiptLanding,
): ReceiptFacts => {
  const { asset } = request.requirements
  const { blockHash, ...landed } = landing
  const where = { network, asset, ...landed, ...(blockHash === undefined ? {} : { blockHash }) }
  if (!isPermit2Request(request)) {
    const { to, value, nonce } = request.payload.authorization
    return { ...where, payee: to, value, maxAmount: value, nonce, scheme: 'exact', transferMethod: 'eip3009' }
  }
  const { witness, permitted, nonce } = request.payload.permit2Authorization
  const upto = isUptoRequest(request)
  return {
    ...where,
    payee: witness.to,
    value: upto ? request.requirements.amount : permitted.amount,
    maxAmount: permitted.amount,
    nonce,
    scheme: upto ? 'upto' : 'exact',
    transferMethod: 'permit2',
  }
}
