import { UintFromString } from '@x402-facilitator/domain'
import type { ChainRpc, ChainRpcOptions } from './chain-rpc.js'
import type { JsonRpcEndpoint } from './json-rpc-endpoint.js'
import { classifyRpcError, decodeAnswer, describeRpcFailure, type RpcFailure } from './rpc-failure.js'

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

class WrongChain extends Error {
  override readonly name = 'WrongChain'
}

/** Sending the same signed bytes again is safe: the same hash, which a node that has it answers "already known". */
const SAME_BYTES_AGAIN = new Set(['eth_sendRawTransaction', 'eth_sendRawTransactionSync'])

interface Url {
  readonly endpoint: JsonRpcEndpoint
  /** Failures in a row: the backoff doubles with each. */
  failures: number
  /** Not made primary again before this time (`now`). */
  retryAt: number
  wrongChain: boolean
  /** Its chain id check, made when it is first used and again each time it becomes primary. */
  checked?: Promise<void>
}

type Attempt<A> = (endpoint: JsonRpcEndpoint, first: boolean, remainingMs: number) => Promise<A>

/**
 * Several URLs of one network (docs/ARCHITECTURE.md §5, RPC failover): one primary at a time, which keeps every call
 * until it fails. A failure of the URL (no answer, timed out, broken answer; never the node's JSON-RPC error, which is
 * its verdict on the call) puts it in backoff and hands over to the next URL not in backoff; the call is retried there
 * within its time bound when that is safe: a read, a call that reached no node, or a signed transaction sent again. A
 * URL's `eth_chainId` is checked before its first use and each time it becomes primary; one serving another chain is
 * never used.
 */
export const makeRpcFailover = (endpoints: ReadonlyArray<JsonRpcEndpoint>, options: ChainRpcOptions): ChainRpc => {
  const now = options.now ?? (() => performance.now())
  const backoffMs = options.backoffMs ?? 1_000
  const maxBackoffMs = options.maxBackoffMs ?? 30_000
  const first = endpoints[0]!
  const timeoutMs = first.timeoutMs
  let expected = options.chainId
  const urls: Url[] = endpoints.map((endpoint) => ({ endpoint, failures: 0, retryAt: -Infinity, wrongChain: false }))
  let primary = urls[0]!
  const listeners = new Set<(label: string) => void>()

  const checkChain = (url: Url): Promise<void> =>
    (url.checked ??= (async () => {
      const answer = await url.endpoint.callWithTimeout('eth_chainId', [], timeoutMs)
      const chainId = Number(decodeAnswer(UintFromString, 'the answer to eth_chainId', answer))
      expected ??= chainId
      if (chainId === expected) return
      url.wrongChain = true
      const label = url.endpoint.label
      options.onUrlEvent?.({ kind: 'wrong-chain', label, chainId, expected })
      throw new WrongChain(`the RPC ${label} serves chain ${chainId}, not ${expected}: it is not used`)
    })().catch((error: unknown) => {
      // A check that got no answer is made again next time; a wrong chain stays known.
      if (!url.wrongChain) url.checked = undefined
      throw error
    }))

  const usable = (url: Url) => !url.wrongChain && now() >= url.retryAt

  /** The first usable URL after `from` in the list (round), not among `tried`. */
  const nextUsable = (from: Url, tried: ReadonlySet<Url>): Url | undefined => {
    const at = urls.indexOf(from)
    for (let k = 1; k < urls.length; k++) {
      const url = urls[(at + k) % urls.length]!
      if (usable(url) && !tried.has(url)) return url
    }
    return undefined
  }

  const becomePrimary = (url: Url) => {
    if (primary === url) return
    primary = url
    url.checked = undefined
    options.onUrlEvent?.({ kind: 'primary', label: url.endpoint.label })
    for (const listener of listeners) listener(url.endpoint.label)
  }

  /** The primary `url` failed (a call that started on an earlier primary changes nothing). */
  const failed = (url: Url, failure: RpcFailure) => {
    if (url !== primary) return
    url.failures += 1
    const retryInMs = Math.min(maxBackoffMs, backoffMs * 2 ** (url.failures - 1))
    url.retryAt = now() + retryInMs
    options.onUrlEvent?.({ kind: 'failed', label: url.endpoint.label, reason: describeRpcFailure(failure), retryInMs })
    const next = nextUsable(url, new Set())
    if (next !== undefined) becomePrimary(next)
  }

  const run = async <A>(attempt: Attempt<A>, boundMs: number, mayRetry: (f: RpcFailure) => boolean): Promise<A> => {
    const deadline = performance.now() + boundMs
    const tried = new Set<Url>()
    let url = primary
    for (;;) {
      tried.add(url)
      try {
        await checkChain(url)
        const result = await attempt(url.endpoint, tried.size === 1, deadline - performance.now())
        url.failures = 0
        return result
      } catch (error) {
        let failure: RpcFailure | undefined
        if (!(error instanceof WrongChain)) {
          failure = classifyRpcError(error)
          if (failure.kind === 'answered') throw error
          failed(url, failure)
        }
        const next = [primary, nextUsable(url, tried)].find((u) => u !== undefined && !tried.has(u) && usable(u))
        const retry = failure === undefined || mayRetry(failure)
        if (next === undefined || !retry || deadline - performance.now() < 1) {
          throw error instanceof WrongChain ? error : new RpcUrlError(url.endpoint.label, error)
        }
        becomePrimary(next)
        url = next
      }
    }
  }

  const always = () => true
  const retryWrite = (method: string) => (failure: RpcFailure) =>
    failure.kind === 'unreachable' || SAME_BYTES_AGAIN.has(method)

  return {
    rpcUrl: first.rpcUrl,
    timeoutMs,
    pollingIntervalMs: first.pollingIntervalMs,
    read: (method, params) =>
      run(
        (endpoint, firstTry, remainingMs) =>
          firstTry ? endpoint.read(method, params) : endpoint.callWithTimeout(method, params ?? [], remainingMs),
        timeoutMs,
        always,
      ),
    write: (method, params) =>
      run(
        (endpoint, _, remainingMs) => endpoint.callWithTimeout(method, params ?? [], remainingMs),
        timeoutMs,
        retryWrite(method),
      ),
    writeBatch: (calls) =>
      run(
        (endpoint, _, remainingMs) => endpoint.writeBatch(calls, remainingMs),
        timeoutMs,
        (failure) => calls.every((call) => retryWrite(call.method)(failure)),
      ),
    callWithTimeout: (method, params, boundMs) =>
      run(
        (endpoint, _, remainingMs) => endpoint.callWithTimeout(method, params, remainingMs),
        boundMs,
        retryWrite(method),
      ),
    onPrimaryChange: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: () => {
      for (const endpoint of endpoints) endpoint.close()
    },
  }
}
