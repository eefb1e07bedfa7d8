/** What the failover tells of its URLs (each named by its label, never its whole URL). */
export type RpcUrlEvent =
  /** The URL did not answer (unreachable, timed out, broken answer): not used again before `retryInMs`. */
  | { readonly kind: 'failed'; readonly label: string; readonly reason: string; readonly retryInMs: number }
  /** The URL serves another chain: never used. */
  | { readonly kind: 'wrong-chain'; readonly label: string; readonly chainId: number; readonly expected: number }
  /** The URL is the primary now: every call goes to it until it fails. */
  | { readonly kind: 'primary'; readonly label: string }

/** A failure of one URL (not the node's answer), carrying the URL's label into `classifyRpcError`'s text. */
export class RpcUrlError extends Error {
  override readonly name = 'RpcUrlError'
  constructor(
    readonly rpcLabel: string,
    override readonly cause: unknown,
  ) {
    super(`${rpcLabel}: ${String((cause as { message?: unknown })?.message ?? cause)}`)
  }
}

/** A URL serving another chain than the network's. */
export class WrongChain extends Error {
  override readonly name = 'WrongChain'
}
