import type { RpcUrlEvent } from './rpc-url-events.js'

/** The URLs of one network: one (`rpcUrl`) or several in order of preference (`rpcUrls`, failover). */
export type RpcUrlsOption = { readonly rpcUrl: string } | { readonly rpcUrls: ReadonlyArray<string> }

export type ChainRpcOptions = RpcUrlsOption & {
  /** The chain every URL must serve (`eth_chainId`); unset: the one the first URL checked answers. */
  readonly chainId?: number
  /** Every call fails within this bound, whatever the node does [10 000]. */
  readonly rpcTimeoutMs?: number
  /** Polling period of the receipt watcher [50]. */
  readonly pollingIntervalMs?: number
  /** Called for every HTTP request that leaves (a batch counts once), with its URL's label: for measurements. */
  readonly onHttpRequest?: (label: string) => void
  /** Told when a URL fails, serves another chain, or becomes the primary (for logs). */
  readonly onUrlEvent?: (event: RpcUrlEvent) => void
  /** A failed URL waits `backoffMs`, doubled at each failure in a row up to `maxBackoffMs` [1 000, 30 000]. */
  readonly backoffMs?: number
  readonly maxBackoffMs?: number
  /** The clock of the backoff [performance.now]. */
  readonly now?: () => number
}

type Call = (method: string, params?: ReadonlyArray<unknown>) => Promise<unknown>

/** The JSON-RPC access every adapter of this package shares. */
export interface ChainRpc {
  /** The first URL (whole: not for logs). */
  readonly rpcUrl: string
  readonly timeoutMs: number
  readonly pollingIntervalMs: number
  /** Reads: the calls made in one turn of the event loop leave together as one JSON-RPC batch. */
  readonly read: Call
  /** Broadcasts: one HTTP request each, so a send never waits behind a batch of reads, nor reads behind it. */
  readonly write: Call
  /**
   * Several broadcasts as one JSON-RPC batch, in the order given; each settles on its own (the node's answer or its
   * refusal); the promise rejects only when the request as a whole failed (no answer, transport).
   */
  readonly writeBatch: (
    calls: ReadonlyArray<{ readonly method: string; readonly params: ReadonlyArray<unknown> }>,
  ) => Promise<ReadonlyArray<BatchOutcome>>
  /** One call with its own time bound (an EIP-7966 sync send waits for the receipt). */
  readonly callWithTimeout: (method: string, params: ReadonlyArray<unknown>, timeoutMs: number) => Promise<unknown>
  /**
   * Calls `listener` (with the new primary's label) each time another URL takes over; returns the unsubscribe. With
   * one URL it never does.
   */
  readonly onPrimaryChange: (listener: (label: string) => void) => () => void
  /** Every URL's `eth_chainId`, read now (start-up); one serving another chain is marked never to be used. */
  readonly checkUrls: () => Promise<ReadonlyArray<RpcUrlStatus>>
  /** Destroys the idle keep-alive sockets (and any in use), so nothing of this client keeps the process running. */
  readonly close: () => void
}

/** One URL as `checkUrls` found it: the chain it serves, and what is wrong with it, if anything. */
export interface RpcUrlStatus {
  readonly label: string
  readonly chainId?: number
  /** Unset: usable. */
  readonly problem?: string
}

export type BatchOutcome =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: unknown }
