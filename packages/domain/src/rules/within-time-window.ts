import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { ensure, type Rule } from './rule.js'

/**
 * Rule 6: valid now, and still valid after a margin that leaves time to mine the transfer
 * (EIP-3009 requires `validAfter < block.timestamp < validBefore`).
 */
export const withinTimeWindow: Rule = ({ request, policy, now }) => {
  const { validAfter, validBefore } = request.payload.authorization
  const margin = policy.validityMarginSeconds
  return pipe(
    ensure(validAfter < now, () => ({ _tag: 'NotYetValid', validAfter, now })),
    E.chain(() => ensure(now + margin < validBefore, () => ({ _tag: 'Expired', validBefore, now, margin }))),
  )
}
