import { eip155Network, makeChainRpc } from '@x402-facilitator/adapters-chain'
import type { Config } from './config.js'
import type { Infrastructure } from './infrastructure.js'
import { checkNetworkNames } from './start-up-checks.js'

/** The network's name (what journal rows record) and CAIP-2 id, as the store needs them before the chain checks. */
export interface ServedNetwork {
  readonly name: string
  readonly chainId: string
}

/**
 * The node's chain (`eth_chainId`), which NETWORK_CAIP2 and NETWORK_ID must name: the replica locks are keyed by it
 * and the journal records the name's chain (docs/ARCHITECTURE.md §5.5), before the other start-up checks run.
 */
export const servedNetwork = async (config: Config, infrastructure: Infrastructure): Promise<ServedNetwork> => {
  const rpc = makeChainRpc({ rpcUrl: infrastructure.rpcUrl, rpcTimeoutMs: config.RPC_TIMEOUT_MS })
  try {
    const chainId = eip155Network(BigInt(String(await rpc.read('eth_chainId'))))
    checkNetworkNames({ networkId: config.NETWORK_ID, caip2: config.NETWORK_CAIP2 }, chainId)
    return { name: config.NETWORK_ID ?? chainId, chainId }
  } finally {
    rpc.close()
  }
}
