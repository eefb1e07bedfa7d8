import { ensure, type Rule } from './rule.js'

/** Rule 5a: the authorization moves something; a transfer of nothing would only spend the facilitator's gas. */
export const valueIsNotZero: Rule = ({ request }) => ensure(request.payload.authorization.value > 0n, () => ({ _tag: 'ZeroValue' }))
