import { makeHttpApp } from '@x402-facilitator/adapters-http'
import { effectiveMinAmount } from '@x402-facilitator/domain'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { ContainerModule } from 'inversify'
import { loadApiKeys } from '../api-keys.js'
import { openRefusal } from '../config.js'
import { Facilitator } from '../facilitator.js'
import * as tokens from '../tokens.js'

/** The koa application of `packages/adapters-http` over the facilitator's use cases, with the operator's keys and limits. */
export const httpModule = new ContainerModule(({ bind }) => {
  bind(tokens.HttpApp).toDynamicValue(async (context) => {
    const config = context.get(tokens.Config)
    const checked = await context.getAsync(tokens.CheckedChain)
    const facilitator = await context.getAsync(Facilitator)
    const watcher = await context.getAsync(tokens.FinalityWatcher)
    const apiKeys = await loadApiKeys(config)
    // API_KEYS_FILE was set, so loadConfig could not count its keys: a file of comments alone still runs open.
    const open = openRefusal(config, apiKeys.length)
    if (open !== undefined) throw new Error(open)
    const rateLimit = config.RATE_LIMIT ?? (context.get(tokens.Infrastructure).devChain ? 0 : 1000)
    return makeHttpApp({
      apiKeys,
      rateLimit: rateLimit > 0 ? { points: rateLimit, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS } : undefined,
      trustedProxies: config.TRUST_PROXY,
      corsOrigins: config.CORS_ORIGINS,
      metrics: context.get(tokens.Observability).registry,
      readiness: context.get(tokens.Readiness),
      // One network, one token today: the lead composes many (issue 25).
      networks: [
        {
          name: facilitator.policy.network,
          caip2: checked.caip2,
          signers: facilitator.lanes.map((lane) => lane.account),
          tokens: [
            {
              ...facilitator.policy.asset,
              eip712: { name: checked.domain.name, version: checked.domain.version },
              minAmount: effectiveMinAmount(facilitator.policy),
            },
          ],
        },
      ],
      facilitator: facilitator.policy.facilitator,
      addressChecksum: context.get(tokens.AddressChecksum),
      verifyPayment: facilitator.verify,
      // The lanes follow the watcher's head (use-cases-module.ts): a settle answers its depth, and waits as told.
      settlePayment: (request, options) => facilitator.settle(request, { ...options, waitFor: config.SETTLE_WAIT_FOR }),
      confirmationsOf: watcher.confirmationsOf,
      lookUpSettlement: facilitator.lookUp,
      // The one network's journal holds at most one row per payer and nonce; the route checked the network named.
      lookUpSettlementsByAuthorization: ({ payer, nonce }) =>
        pipe(
          facilitator.lookUp({ _tag: 'ByAuthorization', payer, nonce }),
          TE.map((row) => (O.isSome(row) ? [row.value] : [])),
        ),
      logger: context.get(tokens.Logger),
    })
  })
})
