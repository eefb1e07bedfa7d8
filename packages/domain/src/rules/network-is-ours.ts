import { ensure, type Rule } from './rule.js'

/** Rule 2b: the payload and the requirements name the one network this facilitator settles on. */
export const networkIsOurs: Rule = ({ request, policy }) => {
  const offending = [request.payload.network, request.requirements.network].find((n) => n !== policy.network)
  return ensure(offending === undefined, () => ({ _tag: 'WrongNetwork', network: offending ?? '', expected: policy.network }))
}
