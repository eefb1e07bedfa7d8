import { describeCapabilities, type ServedNetwork } from '@x402-facilitator/domain'
import type { HttpDeps } from '../http-deps.js'
import { sendReport, type HttpMiddleware } from '../http-context.js'

/**
 * x402 v2's one kind of a network: a resource server keeps only the first kind of a (scheme, network), so every token
 * rides in its `extra`; `name`, `version` and `asset` stay the first token's, as clients read them today.
 */
const kindOf = ({ caip2, tokens }: ServedNetwork) => {
  const first = tokens[0]!
  return {
    x402Version: 2,
    scheme: 'exact',
    network: caip2,
    extra: {
      ...first.eip712,
      asset: first.address,
      assets: tokens.map(({ address, symbol, decimals, eip712, minAmount }) => ({
        address,
        symbol,
        decimals,
        ...eip712,
        minAmount: minAmount.toString(),
      })),
    },
  }
}

/**
 * Under the family (the official facilitator's key) every key, and under each network (x402-rs's) its own: a client
 * reads which keys settle where.
 */
const signersOf = (networks: ReadonlyArray<ServedNetwork>) => ({
  'eip155:*': [...new Set(networks.flatMap((network) => network.signers))],
  ...Object.fromEntries(networks.map((network) => [network.caip2, network.signers])),
})

/**
 * Capabilities change only with configuration: built once, cacheable for 60 s (spec, Limits). The spec's fields
 * and x402 v2's `kinds`, `extensions` and `signers` share one body, so one URL serves both kinds of client.
 */
export const supportedRoute = (deps: HttpDeps): HttpMiddleware => {
  const body = {
    ...describeCapabilities(deps.networks, deps.facilitator),
    kinds: deps.networks.map(kindOf),
    extensions: [],
    signers: signersOf(deps.networks),
  }
  return async (ctx) => {
    sendReport(ctx, { _tag: 'Capabilities' }, body)
  }
}
