import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  isSvmRequest,
  type FamilyRequest,
  type PaymentRoute,
  type RouteFacilitator,
  type VerifyFailure,
} from '@x402-facilitator/domain'

/**
 * A route of one chain family as a route of any (docs/ARCHITECTURE.md §1): a request of the other family reaches it
 * only when its network is not served at all (routing falls back to the first route), and is refused as such (rule 2b),
 * never read by codecs that do not know it.
 */
export const familyRoute = <R extends FamilyRequest>(
  route: PaymentRoute<R>,
  ours: (request: FamilyRequest) => request is R,
): PaymentRoute<FamilyRequest> => {
  const { facilitator } = route
  const unserved = (request: FamilyRequest): VerifyFailure => ({
    _tag: 'WrongNetwork',
    network: request.requirements.network,
    expected: facilitator.policy.network,
  })
  const family: RouteFacilitator<FamilyRequest> = {
    policy: facilitator.policy,
    lanes: facilitator.lanes,
    verify: (request) =>
      ours(request)
        ? facilitator.verify(request)
        : TE.right({ _tag: 'Invalid', payer: '', failure: unserved(request) }),
    settle: (request, options) =>
      ours(request)
        ? facilitator.settle(request, options)
        : TE.right({ _tag: 'Refused', payer: '', refusal: unserved(request) }),
    lookUp: (query) => facilitator.lookUp(query),
    drain: (timeoutMs) => facilitator.drain(timeoutMs),
  }
  return { ...route, facilitator: family }
}

export const isEvmRequest = (request: FamilyRequest): request is Exclude<FamilyRequest, { transaction: string }> =>
  !isSvmRequest(request)
