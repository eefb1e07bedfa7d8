import { createDefaultRpcTransport, createSolanaRpcFromTransport, type RpcTransport } from '@solana/kit'

export interface SvmRpcOptions {
  /** The cluster's RPC URLs (at least one), in order of preference. */
  readonly rpcUrls: ReadonlyArray<string>
  /** How long one request may take before the next URL is tried [10 000 ms]. */
  readonly timeoutMs?: number
}

/**
 * A transport that fails over (as the EVM side does): requests go to the URL that last answered; one that throws
 * (unreachable, an HTTP error, its timeout) passes the request to the next. A JSON-RPC error is an answer, not a
 * failure: the node spoke.
 */
const failoverTransport = ({ rpcUrls, timeoutMs = 10_000 }: SvmRpcOptions): RpcTransport => {
  if (rpcUrls.length === 0) throw new Error('a Solana network needs at least one RPC URL')
  const transports = rpcUrls.map((url) => createDefaultRpcTransport({ url }))
  let primary = 0
  return (async <T>(config: Parameters<RpcTransport>[0]) => {
    let failure: unknown
    for (let tried = 0; tried < transports.length; tried++) {
      const index = (primary + tried) % transports.length
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = config.signal === undefined ? timeout : AbortSignal.any([config.signal, timeout])
      try {
        const answer = await transports[index]!<T>({ ...config, signal })
        primary = index
        return answer
      } catch (error) {
        if (config.signal?.aborted === true) throw error
        failure = error
      }
    }
    throw failure
  }) as RpcTransport
}

/** Standard Solana JSON-RPC through `@solana/kit`, over the network's URLs with failover. */
export const makeSvmRpc = (options: SvmRpcOptions) => createSolanaRpcFromTransport(failoverTransport(options))
export type SvmRpc = ReturnType<typeof makeSvmRpc>
