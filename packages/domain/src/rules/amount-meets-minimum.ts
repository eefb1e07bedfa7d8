import { effectiveMinAmount } from '../model/payment.js'
import { ensure, type Rule } from './rule.js'

/** Rule 5b: the required amount is at least the operator's minimum (`MIN_AMOUNT`), so no settle costs more gas than it is worth. */
export const amountMeetsMinimum: Rule = ({ request, policy }) => {
  const minimum = effectiveMinAmount(policy)
  return ensure(request.requirements.amount >= minimum, () => ({ _tag: 'AmountBelowMinimum', amount: request.requirements.amount, minimum }))
}
