import { ensure, type Rule } from './rule.js'

export const SUPPORTED_MAJOR_VERSION = 2

/** Rule 1: the payload and the requirements speak x402 major version 2. */
export const versionIsSupported: Rule = ({ request }) => {
  const offending = [request.payload.x402Version, request.requirements.x402Version].find((v) => v !== SUPPORTED_MAJOR_VERSION)
  return ensure(offending === undefined, () => ({ _tag: 'UnsupportedVersion', version: offending ?? 0 }))
}
