import { ensure, type Rule } from './rule.js'

/** Rule 5c: the authorized value is at least the required amount. */
export const valueCoversAmount: Rule = ({ request }) =>
  ensure(request.payload.authorization.value >= request.requirements.amount, () => ({
    _tag: 'ValueBelowAmount',
    value: request.payload.authorization.value,
    amount: request.requirements.amount,
  }))
