import type { Hex } from '../model/payment.js'
import type { NewSettlement } from '../ports/settlement-journal.js'
import type { SettleContext } from './settle-context.js'

/** The row stores the bytes sent (`sendableSignature`), so a re-signed attempt sends them too. */
export const newSettlement = ({ request, options, deps, key }: SettleContext, signature: Hex): NewSettlement => {
  const { authorization } = request.payload
  return {
    ...key,
    payee: authorization.to,
    value: authorization.value,
    validAfter: authorization.validAfter,
    validBefore: authorization.validBefore,
    signature,
    requirements: options.requirementsRecord,
    owner: deps.policy.facilitator,
    idempotencyKey: options.idempotencyKey,
    requestHash: options.requestHash,
    caller: options.caller,
  }
}
