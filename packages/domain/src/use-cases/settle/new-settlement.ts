import type { Hex } from '../../model/payment.js'
import type { NewSettlement } from '../../ports/settlement-journal.js'
import type { SettleContext } from './settle-context.js'

/**
 * The row claimed: it stores the bytes sent (`sendableSignature`), so a re-signed attempt sends them too; a Permit2
 * payment's terms with them, and `value` is what its transaction moves (an `upto` settle's amount, never the maximum:
 * recovery and fee replacements send from the row). Its nonce is Permit2's, across every token of the network.
 */
export const newSettlement = ({ request, options, deps, key }: SettleContext, signature: Hex): NewSettlement => {
  const { authorization } = request.payload
  const { permit2 } = authorization
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
    ...(permit2 === undefined || deps.policy.permit2 === undefined
      ? {}
      : { permit2, nonceSpace: deps.policy.permit2.permit2 }),
  }
}
