import {
  catalogResource,
  explainMechanismFailure,
  listCatalog,
  routePayments,
  servedNetworks,
  type Clock,
  type DiscoveryCatalog,
  type WebhookOutbox,
} from '@x402-facilitator/domain'
import { makeHttpApp, type OperatorDeps } from '@x402-facilitator/adapters-http'
import { ContainerModule } from 'inversify'
import { loadApiKeys } from '../api-keys.js'
import { attestationKeyOf } from '../attestation-key.js'
import { isDevMode, openRefusal, type Config } from '../config.js'
import * as tokens from '../tokens.js'
import { makeSettlementAttestor } from './chain/chain-family.js'

/** The koa application of `packages/adapters-http` over the facilitator's use cases, with the operator's keys and limits. */
export const httpModule = new ContainerModule(({ bind }) => {
  bind(tokens.HttpApp).toDynamicValue(async (context) => {
    const config = context.get(tokens.Config)
    const routes = context.get(tokens.PaymentRoutes)
    const apiKeys = await loadApiKeys(config)
    // API_KEYS_FILE was set, so loadConfig could not count its keys: a file of comments alone still runs open.
    const open = openRefusal(config, apiKeys.keys.length)
    if (open !== undefined) throw new Error(open)
    const attestor = makeSettlementAttestor(attestationKeyOf(config), {
      retired: config.ATTESTATION_RETIRED_ADDRESSES ?? [],
    })
    const rateLimit = config.RATE_LIMIT ?? (context.get(tokens.Infrastructure).devChain ? 0 : 1000)
    return makeHttpApp({
      apiKeys: apiKeys.keys,
      uptoPayees: apiKeys.uptoPayees,
      uptoWithoutKeys: context.get(tokens.Infrastructure).devChain !== undefined || config.ALLOW_OPEN_UPTO,
      rateLimit: rateLimit > 0 ? { points: rateLimit, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS } : undefined,
      trustedProxies: config.TRUST_PROXY,
      corsOrigins: config.CORS_ORIGINS,
      metrics: context.get(tokens.Observability).registry,
      readiness: context.get(tokens.ServedReadiness),
      networks: servedNetworks(routes),
      facilitator: routes[0]!.facilitator.policy.facilitator,
      addressChecksum: context.get(tokens.AddressChecksum),
      explainMechanismRefusal: explainMechanismFailure,
      // The lanes follow the watcher's head (use-cases-module.ts): a settle answers its depth, and waits as told.
      ...routePayments(routes, config.SETTLE_WAIT_FOR),
      logger: context.get(tokens.Logger),
      attestor,
      operator: operatorOf(config.OPERATOR_TOKEN, context.get(tokens.Store).webhookOutbox),
      discovery: discoveryOf(config, context.get(tokens.Store).discoveryCatalog, context.get(tokens.Clock)),
    })
  })
})

const DAY_MS = 86_400_000

/** Bazaar discovery (docs/CONFIGURATION.md): on with DISCOVERY (dev mode: unless DISCOVERY=false) and a catalog. */
const discoveryOf = (config: Config, catalog: DiscoveryCatalog | undefined, clock: Clock) => {
  const on = config.DISCOVERY ?? isDevMode(config)
  if (!on || catalog === undefined) return undefined
  const deps = {
    catalog,
    clock,
    maxPerPayee: config.DISCOVERY_MAX_PER_PAYEE,
    maxAgeMs: config.DISCOVERY_MAX_AGE_DAYS * DAY_MS,
  }
  return {
    catalogResource: catalogResource(deps),
    catalogWaitMs: config.DISCOVERY_WAIT_MS,
    listResources: listCatalog(deps),
    hideResource: catalog.hide,
  }
}

/** The operator's look-up of deliveries (docs/API.md, "Operator"): served only with OPERATOR_TOKEN and an outbox. */
const operatorOf = (token: string | undefined, outbox: WebhookOutbox | undefined): OperatorDeps | undefined =>
  token === undefined || outbox === undefined ? undefined : { token, recentDeliveries: (query) => outbox.recent(query) }
