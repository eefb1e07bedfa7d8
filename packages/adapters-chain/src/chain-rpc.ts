import { createPublicClient, http, RpcRequestError, type PublicClient } from 'viem'
import { getHttpRpcClient } from 'viem/utils'

export interface ChainRpcOptions {
  readonly rpcUrl: string
  /** Every call fails within this bound, whatever the node does [10 000]. */
  readonly rpcTimeoutMs?: number
  /** Polling period of the receipt watcher and viem's own polling [50]. */
  readonly pollingIntervalMs?: number
  /** Called for every HTTP request that leaves (a batch counts once): for measurements. */
  readonly onHttpRequest?: () => void
}

type Call = (method: string, params?: ReadonlyArray<unknown>) => Promise<unknown>

/** The JSON-RPC access every adapter of this package shares. */
export interface ChainRpc {
  readonly rpcUrl: string
  readonly timeoutMs: number
  readonly pollingIntervalMs: number
  /** Reads: the calls made in one tick leave together as one JSON-RPC batch. */
  readonly readClient: PublicClient
  readonly read: Call
  /** Broadcasts: one HTTP request each, so a send never waits behind a batch of reads, nor reads behind it. */
  readonly write: Call
  /** One call with its own time bound (an EIP-7966 sync send waits for the receipt). */
  readonly callWithTimeout: (method: string, params: ReadonlyArray<unknown>, timeoutMs: number) => Promise<unknown>
}

const caller =
  (client: PublicClient): Call =>
  (method, params) =>
    (client.request as (args: { method: string; params?: ReadonlyArray<unknown> }) => Promise<unknown>)({ method, params })

export const makeChainRpc = ({ rpcUrl, rpcTimeoutMs = 10_000, pollingIntervalMs = 50, onHttpRequest }: ChainRpcOptions): ChainRpc => {
  const onFetchRequest = onHttpRequest && ((): undefined => void onHttpRequest())
  const readClient = createPublicClient({
    transport: http(rpcUrl, { batch: { batchSize: 500, wait: 0 }, retryCount: 0, timeout: rpcTimeoutMs, onFetchRequest }),
    pollingInterval: pollingIntervalMs,
  })
  const writeClient = createPublicClient({
    transport: http(rpcUrl, { retryCount: 0, timeout: rpcTimeoutMs, onFetchRequest }),
    pollingInterval: pollingIntervalMs,
  })
  const httpClient = getHttpRpcClient(rpcUrl, { onRequest: onFetchRequest })
  return {
    rpcUrl,
    timeoutMs: rpcTimeoutMs,
    pollingIntervalMs,
    readClient,
    read: caller(readClient),
    write: caller(writeClient),
    callWithTimeout: async (method, params, timeoutMs) => {
      const body = { method, params: [...params] }
      const response = await httpClient.request({ body, timeout: timeoutMs })
      if (response.error) throw new RpcRequestError({ body, error: response.error, url: rpcUrl })
      return response.result
    },
  }
}
