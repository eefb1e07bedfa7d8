import { ensure, type Rule } from './rule.js'

/** Rule 4b: the authorization pays the required recipient. Addresses are canonical (lower case) after decoding. */
export const recipientMatches: Rule = ({ request }) =>
  ensure(request.payload.authorization.to === request.requirements.payTo, () => ({
    _tag: 'RecipientMismatch',
    expected: request.requirements.payTo,
    actual: request.payload.authorization.to,
  }))
