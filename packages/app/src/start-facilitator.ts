import 'reflect-metadata'
import type { LocalChain } from './modules/chain/chain-family.js'
import {
  type AnyPaymentRequest,
  type PaymentRoute,
  type Address,
  type Clock,
  type FacilitatorPolicy,
  type Settler,
  familyRoute,
  isEvmRequest,
  isSvmRequest,
  NOBODY_DENIED,
} from '@x402-facilitator/domain'
import type { Logger as PinoLogger } from 'pino'
import type { Container } from 'inversify'
import { attestationKeyOf } from './attestation-key.js'
import { isDevMode, type Config } from './config.js'
import { buildContainer } from './container.js'
import { listen } from './http-server.js'
import { routeInfrastructure, startInfrastructure, type Infrastructure } from './infrastructure.js'
import { networksReadiness } from './network-readiness.js'
import { makeServiceMetrics, type WatchedRoute } from './observability.js'
import { openNetworks } from './open-networks.js'
import { servedTokenOf } from './served-token.js'
import type { OpenChain } from './modules/chain/chain-module.js'
import { openJsonRpcChain } from './modules/chain/json-rpc-chain-module.js'
import { openPostgresStore } from './modules/persistence-module.js'
import { openStore, type OpenStore } from './modules/store-module.js'
import { ResourceStack } from './resource-stack.js'
import { startRouteLoops } from './start-route-loops.js'
import { openDenyList, type DenyListFile } from './screening/open-deny-list.js'
import * as tokens from './tokens.js'
import { openSvmNetworks, type DevSvm } from './modules/svm/svm-networks.js'
import { startSvmNetworks, type SvmRoute } from './modules/svm/start-svm-routes.js'
import { svmStoreNetwork } from './modules/svm/opened-svm-network.js'
import { startWebhooks } from './webhooks/start-webhooks.js'

export interface RunningFacilitator {
  readonly url: string
  readonly policy: FacilitatorPolicy
  /** Every signing key's account, the policy's `facilitator` first (docs/ARCHITECTURE.md §5.8). */
  readonly facilitators: ReadonlyArray<Address>
  readonly rpcUrl: string
  /** Every (network, token) served, in the configuration's order: the first is `policy`'s. */
  readonly routes: ReadonlyArray<PaymentRoute<AnyPaymentRequest>>
  /** Dev mode only: the (first) chain it started, with the demo payers. */
  readonly devChain?: LocalChain
  /** Dev mode only: every chain it started. */
  readonly devChains: ReadonlyArray<LocalChain>
  /** Every Solana (network, mint) served (docs/ARCHITECTURE.md §1). */
  readonly svmRoutes: ReadonlyArray<SvmRoute>
  /** Dev mode only: the local Solana chain it started, with its demo payers. */
  readonly devSvm?: DevSvm
  /** The batch settler, checked at start-up; unset: one transaction per payment (docs/ARCHITECTURE.md §5.7). */
  readonly settler?: Settler
  readonly denyList?: DenyListFile
  /** Graceful: stop accepting, let settles in flight finish (bounded), stop recovery, close the pool, stop what dev mode started. */
  readonly stop: () => Promise<void>
}

export interface StartOptions {
  readonly config: Config
  readonly logger: PinoLogger
  /** Progress lines while starting, for a person watching. */
  readonly progress?: (line: string) => void
  /** What makes the store [Postgres]: swapping the store is passing another one. */
  readonly store?: OpenStore
  /** What makes the chain [the JSON-RPC client]: swapping the chain client is passing another one. */
  readonly chain?: OpenChain
  /** Decides when webhook retries are due [the machine's]: tests drive it (docs/ARCHITECTURE.md §5.9). */
  readonly webhookClock?: Clock
}

/** A route's container, and what start-up made of it. */
interface StartedRoute {
  readonly container: Container
  readonly infrastructure: Infrastructure
}

/** Starts each part in order, its stop pushed on a stack: a failed start-up or a shutdown stops them in reverse. */
export const startFacilitator = async (options: StartOptions): Promise<RunningFacilitator> => {
  const { logger, progress = () => {}, store = openPostgresStore, chain: openChain = openJsonRpcChain } = options
  // Chosen once (dev mode makes one): the receipts of answers and of webhook events are signed by one key.
  const config = { ...options.config, ATTESTATION_PRIVATE_KEY: attestationKeyOf(options.config) }
  const resources = new ResourceStack()
  const unwind = () => resources.unwind((name, error) => logger.error({ err: error }, `stopping ${name} failed`))
  try {
    const started = await startInfrastructure(config, resources, progress)
    const networks = await openNetworks(started, { logger, openChain, resources })
    const svm = await openSvmNetworks(config, isDevMode(config), resources, progress)
    const servedNames = [...networks.map((served) => served.name), ...svm.networks.map((n) => n.caip2)]
    const layout = networks.flatMap((network) =>
      network.tokens.map((token) => ({
        token,
        chain: network.chain,
        infrastructure: routeInfrastructure(network, token, servedNames),
      })),
    )
    const first = layout[0]!
    const storeNetworks = [
      ...networks.map(({ name, caip2, keys, tokens }) => ({
        name,
        chainId: caip2,
        accounts: keys.facilitators as ReadonlyArray<Address>,
        assets: tokens.map((token) => token.address.toLowerCase() as Address),
      })),
      ...svm.networks.map(svmStoreNetwork),
    ]
    const start = { config, logger, infrastructure: first.infrastructure, networks: storeNetworks, progress }
    const { store: opened, gates } = await openStore(store, start, resources)
    const watched: WatchedRoute[] = []
    const metrics = makeServiceMetrics({
      routes: () => watched,
      locks: networks.flatMap(({ name, caip2 }) => gates.get(caip2)!.map((gate) => ({ network: name, gate }))),
      store: opened.metrics,
      rpcRequests: () => networks.map(({ name, chain }) => ({ network: name, count: chain.httpRequests() })),
    })
    const denyList = await openDenyList(config, logger, metrics.registry, resources)
    const routes: StartedRoute[] = layout.map(({ token, chain, infrastructure }) => ({
      infrastructure,
      container: buildContainer({
        config: token.config,
        logger,
        infrastructure,
        store: opened,
        replicaLocks: gates.get(infrastructure.caip2)!,
        chain,
        metrics,
        screen: denyList,
      }),
    }))
    const paymentRoutes: PaymentRoute<AnyPaymentRequest>[] = []
    for (const { container, infrastructure } of routes) {
      // The start-up checks (the node serves the configured chain, the token answers EIP-3009, the settler is ours) make the policy.
      const policy = await container.getAsync(tokens.FacilitatorPolicy)
      await container.getAsync(tokens.Settler)
      // docs/ARCHITECTURE.md §6: /readyz and /metrics answer from this snapshot, read now and then in the background.
      const probes = await container.getAsync(tokens.ProbeSnapshot)
      await probes.refresh()
      probes.start(config.PROBE_REFRESH_MS)
      resources.push('probe snapshot', () => probes.stop())
      const facilitator = await container.getAsync(tokens.Facilitator)
      const checked = await container.getAsync(tokens.CheckedChain)
      const { confirmationsOf } = await container.getAsync(tokens.FinalityWatcher)
      paymentRoutes.push({
        network: policy.network,
        caip2: checked.caip2,
        asset: policy.asset.address,
        token: servedTokenOf(policy, checked),
        facilitator,
        confirmationsOf,
      })
      watched.push({ network: infrastructure.network, snapshot: probes, lanes: facilitator.lanes })
    }
    // docs/ARCHITECTURE.md §1: each Solana (network, mint) a route of its own, beside the EVM's.
    const { routes: svmRoutes, readiness: svmReadiness } = await startSvmNetworks(svm.networks, {
      config,
      logger,
      store: opened,
      gates,
      screen: denyList ?? NOBODY_DENIED,
      servedNetworks: servedNames,
      resources,
      registry: metrics.registry,
    })
    const [head] = routes
    head!.container
      .bind(tokens.PaymentRoutes)
      .toConstantValue([
        ...paymentRoutes.map((route) => familyRoute(route, isEvmRequest)),
        ...svmRoutes.map((route) => familyRoute(route, isSvmRequest)),
      ])
    head!.container.bind(tokens.ServedReadiness).toConstantValue(
      networksReadiness([
        ...routes.map(({ container, infrastructure }) => ({
          network: infrastructure.network,
          readiness: container.get(tokens.Readiness),
        })),
        ...svmReadiness,
      ]),
    )
    // Made before recovery runs: the API keys it reads may still fail the start.
    const app = await head!.container.getAsync(tokens.HttpApp)

    progress('recovering unfinished settlements…')
    for (const route of routes) await startRouteLoops(route, { config, logger, gates, resources })

    startWebhooks({ config, store: opened, logger, registry: metrics.registry, resources, clock: options.webhookClock })
    const server = await listen(app, config.HOST, config.PORT, {
      headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    })
    const drain = () =>
      Promise.all(
        [...paymentRoutes, ...svmRoutes].map(({ facilitator }) => facilitator.drain(config.SHUTDOWN_GRACE_MS)),
      )
    resources.push('HTTP server', () =>
      Promise.all([server.close(config.SHUTDOWN_GRACE_MS), drain()]).then(() => undefined),
    )
    return {
      url: server.url,
      policy: paymentRoutes[0]!.facilitator.policy,
      routes: paymentRoutes,
      svmRoutes,
      ...(svm.devSvm === undefined ? {} : { devSvm: svm.devSvm }),
      facilitators: started.facilitators,
      rpcUrl: first.infrastructure.rpcUrl,
      devChain: first.infrastructure.devChain,
      devChains: started.networks.flatMap((network) => (network.devChain ? [network.devChain] : [])),
      settler: await head!.container.getAsync(tokens.Settler),
      ...(denyList && { denyList }),
      stop: unwind,
    }
  } catch (error) {
    await unwind()
    throw error
  }
}
