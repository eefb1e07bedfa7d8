import 'reflect-metadata'
import type { LocalChain } from '@x402-facilitator/adapters-chain'
import type { Address, FacilitatorPolicy } from '@x402-facilitator/domain'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from './config.js'
import { routeSettings } from './config/networks.js'
import { buildContainer } from './container.js'
import { Facilitator } from './facilitator.js'
import { listen } from './http-server.js'
import { startInfrastructure } from './infrastructure.js'
import type { OpenChain } from './modules/chain-module.js'
import { openJsonRpcChain } from './modules/json-rpc-chain-module.js'
import { openPostgresStore } from './modules/persistence-module.js'
import { openStore, type OpenStore } from './modules/store-module.js'
import { warnOfOrphanedKeys } from './orphaned-keys.js'
import { RecoveryLoop } from './recovery-loop.js'
import { ResourceStack } from './resource-stack.js'
import type { Settler } from './settler-check.js'
import * as tokens from './tokens.js'

export interface RunningFacilitator {
  readonly url: string
  readonly policy: FacilitatorPolicy
  /** Every signing key's account, the policy's `facilitator` first (docs/ARCHITECTURE.md §5.8). */
  readonly facilitators: ReadonlyArray<Address>
  readonly rpcUrl: string
  /** Dev mode only: the chain it started, with the demo payers. */
  readonly devChain?: LocalChain
  /** The batch settler, checked at start-up; unset: one transaction per payment (docs/ARCHITECTURE.md §5.7). */
  readonly settler?: Settler
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
}

/** The settings of the one network and token this build composes (docs/ARCHITECTURE.md §1). */
const oneRoute = (config: Config): Config => {
  const [network, more] = config.networks
  if (network === undefined) return config
  if (more !== undefined || network.tokens.length > 1 || network.rpcUrls.length > 1)
    throw new Error('configuration: this build serves one network with one token and one RPC URL')
  return routeSettings(config, network, network.tokens[0]!)
}

/** Starts each part in order, its stop pushed on a stack: a failed start-up or a shutdown stops them in reverse. */
export const startFacilitator = async (options: StartOptions): Promise<RunningFacilitator> => {
  const config = oneRoute(options.config)
  const { logger, progress = () => {}, store = openPostgresStore, chain: openChain = openJsonRpcChain } = options
  const resources = new ResourceStack()
  const unwind = () => resources.unwind((name, error) => logger.error({ err: error }, `stopping ${name} failed`))
  try {
    const infrastructure = await startInfrastructure(config, resources, progress)
    const opened = await openStore(store, { config, logger, infrastructure, progress }, resources)
    const container = buildContainer({ config, logger, infrastructure, ...opened, openChain })
    // The start-up checks (the node serves the configured chain, the token answers EIP-3009, the settler is ours) make the policy.
    const policy = await container.getAsync(tokens.FacilitatorPolicy)
    const settler = await container.getAsync(tokens.Settler)
    const chain = await container.getAsync(tokens.Chain)
    resources.push('chain RPC', () => chain.stop())
    // docs/ARCHITECTURE.md §6: /readyz and /metrics answer from this snapshot, read now and then in the background.
    const probes = await container.getAsync(tokens.ProbeSnapshot)
    await probes.refresh()
    probes.start(config.PROBE_REFRESH_MS)
    resources.push('probe snapshot', () => probes.stop())
    // Made before recovery runs: the API keys it reads may still fail the start.
    const app = await container.getAsync(tokens.HttpApp)
    const facilitator = await container.getAsync(Facilitator)
    const recovery = await container.getAsync(RecoveryLoop)

    progress('recovering unfinished settlements…')
    await recovery.runOnce({ startUp: true })
    // docs/ARCHITECTURE.md §5.8: a key removed from the pool before its rows were drained.
    await warnOfOrphanedKeys(
      container.get(tokens.SettlementJournal),
      container.get(tokens.ReplicaLiveness),
      infrastructure.facilitators,
      logger,
    )
    recovery.start(config.RECOVERY_INTERVAL_MS)
    // docs/ARCHITECTURE.md §5.5: another replica may have touched our rows while the lock was lost.
    for (const gate of opened.replicaLocks) gate.onRegained(() => void recovery.runOnce())
    resources.push('recovery loop', () => recovery.stop())
    // docs/ARCHITECTURE.md §5.6: its first check covers rows a killed process left confirmed but not final.
    const finality = await container.getAsync(tokens.FinalityWatcher)
    finality.start()
    resources.push('finality watcher', () => finality.stop())

    const server = await listen(app, config.HOST, config.PORT, {
      headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    })
    resources.push('HTTP server', () =>
      Promise.all([server.close(config.SHUTDOWN_GRACE_MS), facilitator.drain(config.SHUTDOWN_GRACE_MS)]).then(
        () => undefined,
      ),
    )
    return {
      url: server.url,
      policy,
      facilitators: infrastructure.facilitators,
      rpcUrl: infrastructure.rpcUrl,
      devChain: infrastructure.devChain,
      settler,
      stop: unwind,
    }
  } catch (error) {
    await unwind()
    throw error
  }
}
