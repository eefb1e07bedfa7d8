import type { SettleRefusal } from '../model/failures.js'
import type { SettleContext } from './settle-context.js'

/**
 * docs/ARCHITECTURE.md §5.7: a payer with code whose own transaction reverted is not sent again for a while, nor is any
 * payer with code once their reverted lone transactions have spent the network's budget.
 */
export const sendingRefusal = (ctx: SettleContext, payerHasCode: boolean): SettleRefusal | undefined => {
  const payer = ctx.request.payload.authorization.from
  const suspended = payerHasCode ? ctx.deps.penalties?.sendingRefusedUntil(payer) : undefined
  if (suspended !== undefined) return { _tag: 'PayerSuspended', payer, until: suspended }
  const budgetSpent = payerHasCode ? ctx.deps.penalties?.contractPayersRefusedUntil() : undefined
  return budgetSpent === undefined ? undefined : { _tag: 'ContractPayerGasBudgetSpent', payer, until: budgetSpent }
}
