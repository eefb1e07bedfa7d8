import * as TE from 'fp-ts/lib/TaskEither.js'
import type { VerifyFailure } from '../../model/failures.js'
import type { PaymentRoute, RouteFacilitator, RoutedRequest } from './payment-routes.js'

/**
 * A route of one chain family as a route of requests of any (`A`; docs/ARCHITECTURE.md §1): a request that is not its
 * family's (`ours`) reaches it only when its network is not served at all (routing falls back to the first route), and
 * is refused as such (rule 2b), never read by codecs that do not know it.
 */
export const familyRoute = <A extends RoutedRequest, R extends A>(
  route: PaymentRoute<R>,
  ours: (request: A) => request is R,
): PaymentRoute<A> => {
  const { facilitator } = route
  const unserved = (request: A): VerifyFailure => ({
    _tag: 'WrongNetwork',
    network: request.requirements.network,
    expected: facilitator.policy.network,
  })
  const family: RouteFacilitator<A> = {
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
