import { effectiveMinAmount, type FacilitatorPolicy, type ServedToken } from '@x402-facilitator/domain'
import type { CheckedChain } from './start-up-checks.js'

/** The token as `/supported` lists it: the policy's, with what the chain said of it at start-up. */
export const servedTokenOf = (
  policy: FacilitatorPolicy,
  checked: Pick<CheckedChain, 'domain' | 'eip2612'>,
): ServedToken => ({
  ...policy.asset,
  eip712: { name: checked.domain.name, version: checked.domain.version },
  minAmount: effectiveMinAmount(policy),
  eip2612: checked.eip2612,
  ...(policy.permit2 !== undefined && policy.permit2.uptoProxy === undefined ? { upto: false as const } : {}),
})
