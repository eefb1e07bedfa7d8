import { rpcUrlLabel } from './http-post.js'
import { makeJsonRpcEndpoint } from './json-rpc-endpoint.js'
import type { ChainRpc, ChainRpcOptions } from './chain-rpc-types.js'
import { makeRpcFailover } from './rpc-failover.js'

export type { BatchOutcome, ChainRpc, ChainRpcOptions, RpcUrlsOption, RpcUrlStatus } from './chain-rpc-types.js'
export type { RpcUrlEvent } from './rpc-url-events.js'

/** How a URL is named in errors, logs and metrics: its place in the list and its host, never its path or query. */
export const rpcEndpointLabel = (rpcUrl: string, index: number): string => `#${index + 1} (${rpcUrlLabel(rpcUrl)})`

/**
 * The network's RPC access (docs/ARCHITECTURE.md §5.3, RPC failover). One URL and no expected chain id: that URL's
 * client as is (`json-rpc-endpoint.ts`), nothing in between. Otherwise the failover (`rpc-failover.ts`).
 */
export const makeChainRpc = (options: ChainRpcOptions): ChainRpc => {
  const rpcUrls = 'rpcUrls' in options ? options.rpcUrls : [options.rpcUrl]
  if (rpcUrls.length === 0) throw new Error('at least one RPC URL is needed')
  const rpcTimeoutMs = options.rpcTimeoutMs ?? 10_000
  const pollingIntervalMs = options.pollingIntervalMs ?? 50
  const endpoints = rpcUrls.map((rpcUrl, i) =>
    makeJsonRpcEndpoint({
      rpcUrl,
      label: rpcEndpointLabel(rpcUrl, i),
      rpcTimeoutMs,
      pollingIntervalMs,
      onHttpRequest: options.onHttpRequest,
    }),
  )
  if (endpoints.length === 1 && options.chainId === undefined) return endpoints[0]!
  return makeRpcFailover(endpoints, options)
}
