import type { Hex } from '../../model/payment.js'
import type { ClaimResult, NewSettlement } from '../../ports/settlement-journal.js'
import type { SettleContext, Step } from './settle-context.js'

/**
 * docs/ARCHITECTURE.md §5.2: one atomic insert per authorization, or the row already there (`Conflict`, answered from
 * its state, await-row.ts). The row stores the bytes sent (`sendableSignature`), so a re-signed attempt sends them too.
 */
export const claim = (ctx: SettleContext, signature: Hex): Step<ClaimResult> => ctx.deps.journal.claim(newSettlement(ctx, signature))

const newSettlement = ({ request, options, deps, key }: SettleContext, signature: Hex): NewSettlement => {
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
