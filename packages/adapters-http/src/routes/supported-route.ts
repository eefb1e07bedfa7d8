import { describeCapabilities } from '@x402-facilitator/domain'
import type { HttpDeps } from '../http-deps.js'
import { sendReport, type HttpMiddleware } from '../http-context.js'

/**
 * Capabilities change only with configuration: built once, cacheable for 60 s (spec, Limits). The spec's fields
 * and x402 v2's `kinds`, `extensions` and `signers` share one body, so one URL serves both kinds of client.
 */
export const supportedRoute = (deps: HttpDeps): HttpMiddleware => {
  const body = {
    ...describeCapabilities(deps.policy),
    kinds: [
      {
        x402Version: 2,
        scheme: 'exact',
        network: deps.caip2Network,
        extra: { ...deps.tokenDomain, asset: deps.policy.asset.address },
      },
    ],
    extensions: [],
    // Under the family (the official facilitator's key) and under the network (x402-rs's): with several networks, a
    // client reads which keys settle where.
    signers: Object.fromEntries(
      ['eip155:*', deps.caip2Network].map((key) => [key, deps.signers ?? [deps.policy.facilitator]]),
    ),
  }
  return async (ctx) => {
    sendReport(ctx, { _tag: 'Capabilities' }, body)
  }
}
