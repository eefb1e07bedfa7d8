import { ZERO_ADDRESS } from '../model/payment.js'
import { ensure, type Rule } from './rule.js'

/**
 * Rule 4a: the requirements pay someone. A transfer to the zero address burns the tokens (or reverts) and the
 * facilitator pays its gas; a zero `to` is then refused by rule 4b, since it no longer matches `payTo`.
 */
export const payToIsNotZero: Rule = ({ request }) =>
  ensure(request.requirements.payTo !== ZERO_ADDRESS, () => ({ _tag: 'ZeroRecipient' }))
