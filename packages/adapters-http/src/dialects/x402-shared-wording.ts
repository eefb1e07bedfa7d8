import type { Address } from '@x402-facilitator/domain'
import { refusalContext, type Wording } from './dialect.js'

/** A settle that did not succeed: no transaction, unless one is pending or an earlier one settled the payment. */
const notSettledBody = (network: string, code: string, message: string, payer?: Address, transaction = '') => ({
  success: false,
  errorReason: code,
  errorMessage: message,
  transaction,
  network,
  payer,
})

/**
 * What x402 v1 and v2 word alike, on `network` (each in its own naming): `isValid`/`invalidReason`/`invalidMessage`,
 * and a settle that did not succeed with `success: false`, `errorReason`, `errorMessage`, `transaction`, `network`
 * (and an earlier settlement's state).
 */
export const x402SharedWording = (network: string): Omit<Wording, 'settled' | 'waived'> => ({
  valid: (payer) => ({ isValid: true, payer }),
  invalid: (code, message, payer) => ({ isValid: false, invalidReason: code, invalidMessage: message, payer }),
  pending: (code, message, { payer, txHash }) => notSettledBody(network, code, message, payer, txHash),
  refused: (code, message, { payer, refusal }) => {
    const { txHash, settlementState } = refusalContext(refusal)
    // Which state the earlier settlement is in: a confirmed one and a reverted one are otherwise alike here.
    return {
      ...notSettledBody(network, code, message, payer, txHash),
      ...(settlementState === undefined ? {} : { settlementState }),
    }
  },
  notSettled: (code, message) => notSettledBody(network, code, message),
})
