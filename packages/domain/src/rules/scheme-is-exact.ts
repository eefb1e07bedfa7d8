import { ensure, type Rule } from './rule.js'

/** Rule 2a: only the `exact` scheme, in the payload and in the requirements. */
export const schemeIsExact: Rule = ({ request }) => {
  const offending = [request.payload.scheme, request.requirements.scheme].find((s) => s !== 'exact')
  return ensure(offending === undefined, () => ({ _tag: 'UnsupportedScheme', scheme: offending ?? '' }))
}
