import type { Logger as PinoLogger } from 'pino'
import type { NetworkInfrastructure, StartedInfrastructure } from './infrastructure.js'
import type { ResourceStack } from './resource-stack.js'
import { checkPermit2Contracts, permit2Of } from './permit2-network.js'
import { checkNetworkNames } from './start-up-checks.js'
import type { Chain, OpenChain } from './tokens.js'

/** A network with its chain opened (once for all its tokens' routes) and named. */
export interface OpenedNetwork extends NetworkInfrastructure {
  /** Its name in the spec dialect: `NETWORK_ID` (a file's `name`), else its CAIP-2 id. */
  readonly name: string
  /** Its CAIP-2 id, as its node answers. */
  readonly caip2: string
  readonly chain: Chain
}

/**
 * docs/ARCHITECTURE.md §5.3: a URL serving another chain refuses the start (it is a mistake of the configuration); one
 * that does not answer is only told (a backup may be down now and then: failover skips it until it answers).
 */
const checkEveryUrl = async (chain: Chain, name: string, caip2: string, logger: PinoLogger) => {
  for (const { label, chainId, problem } of await chain.readiness.rpcUrls()) {
    if (chainId !== undefined && `eip155:${chainId}` !== caip2)
      throw new Error(`configuration: network ${name}'s RPC URL ${label} serves eip155:${chainId}, not ${caip2}`)
    if (problem !== undefined) logger.warn({ network: name, rpc: label, problem }, 'RPC: a URL does not answer yet')
  }
}

/**
 * Each network's chain, opened once: one nonce sequence, broadcast queue and receipt watcher per key and network
 * (docs/ARCHITECTURE.md §5.8), shared by its tokens' routes; its CAIP-2 id read from its node (the start-up checks
 * compare it with the configuration's). Two networks of one name are refused: a payment could not be routed.
 */
export const openNetworks = async (
  started: StartedInfrastructure,
  deps: {
    readonly logger: PinoLogger
    readonly openChain: OpenChain
    readonly resources: ResourceStack
  },
): Promise<ReadonlyArray<OpenedNetwork>> => {
  const opened: OpenedNetwork[] = []
  for (const network of started.networks) {
    const { config } = network.tokens[0]!
    const chain = deps.openChain({ config, logger: deps.logger, infrastructure: { ...network.keys, network } })
    deps.resources.push('chain RPC', () => chain.stop())
    const caip2 = await chain.readiness.network()
    checkNetworkNames({ networkId: config.NETWORK_ID, caip2: config.NETWORK_CAIP2 }, caip2)
    const label = config.NETWORK_ID ?? caip2
    if (network.rpcUrls.length > 1) await checkEveryUrl(chain, label, caip2, deps.logger)
    await checkPermit2Contracts(chain.readiness, label, permit2Of(network.tokens))
    const twin = opened.find((other) => other.name === label || other.caip2 === caip2)
    if (twin !== undefined)
      throw new Error(`configuration: two networks are ${label} (${caip2}): each network needs its own chain and name`)
    opened.push({ ...network, name: label, caip2, chain })
  }
  return opened
}
