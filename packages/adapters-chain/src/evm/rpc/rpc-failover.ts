import { UintFromString } from '@x402-facilitator/domain'
import type { BatchOutcome, ChainRpc, ChainRpcOptions, RpcUrlStatus } from './chain-rpc-types.js'
import type { JsonRpcEndpoint } from './json-rpc-endpoint.js'
import { RpcUrlError, WrongChain } from './rpc-url-events.js'
import { classifyRpcError, decodeAnswer, describeRpcFailure, isAlreadyKnown, type RpcFailure } from './rpc-failure.js'

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
  /** What it answered last. */
  chainId?: number
}

type Attempt<A> = (endpoint: JsonRpcEndpoint, first: boolean, remainingMs: number) => Promise<A>

/**
 * Whether a call goes on to the next URL once its URL failed: a read always; signed transactions always (the same
 * bytes, the same hash), but once one may have reached a node, another node's refusal does not settle it; anything
 * else only when it reached no node.
 */
type Retry = 'read' | 'resend' | 'unreached'

/** What a send that reached a node only after an uncertain failure came to. */
type Sent<A> = (result: A, uncertain: RpcUrlError) => A

/**
 * Several URLs of one network (docs/ARCHITECTURE.md §5.3, RPC failover): one primary at a time, which keeps every call
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
      url.chainId = chainId
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

  const statusOf = async (url: Url): Promise<RpcUrlStatus> => {
    const { label } = url.endpoint
    try {
      await checkChain(url)
      return { label, chainId: url.chainId }
    } catch (error) {
      const problem = error instanceof WrongChain ? error.message : describeRpcFailure(classifyRpcError(error))
      return { label, ...(url.chainId === undefined ? {} : { chainId: url.chainId }), problem }
    }
  }

  const run = async <A>(attempt: Attempt<A>, boundMs: number, retry: Retry, sent?: Sent<A>): Promise<A> => {
    const deadline = performance.now() + boundMs
    const tried = new Set<Url>()
    // A primary in backoff gives way to the first URL whose backoff is over; one serving another chain, to any other.
    if (!usable(primary))
      becomePrimary(
        nextUsable(primary, tried) ?? (primary.wrongChain ? urls.find((u) => !u.wrongChain) : primary) ?? primary,
      )
    let url = primary
    /** A failure of an earlier URL that may have reached its node: what a send comes to unless a node takes it. */
    let uncertain: RpcUrlError | undefined
    for (;;) {
      tried.add(url)
      try {
        await checkChain(url)
        const result = await attempt(url.endpoint, tried.size === 1, deadline - performance.now())
        url.failures = 0
        return uncertain !== undefined && sent !== undefined ? sent(result, uncertain) : result
      } catch (error) {
        let failure: RpcFailure | undefined
        if (!(error instanceof WrongChain)) {
          failure = classifyRpcError(error)
          if (failure.kind === 'answered') {
            // "Nonce too low" after a send that may have gone through says nothing: it may be that very send, mined.
            if (uncertain !== undefined && retry === 'resend' && !isAlreadyKnown(failure)) throw uncertain
            throw error
          }
          failed(url, failure)
          if (failure.kind !== 'unreachable') uncertain ??= new RpcUrlError(url.endpoint.label, error)
        }
        const next = [primary, nextUsable(url, tried)].find((u) => u !== undefined && !tried.has(u) && usable(u))
        const mayRetry = retry !== 'unreached' || failure === undefined || failure.kind === 'unreachable'
        if (next === undefined || !mayRetry || deadline - performance.now() < 1) {
          if (error instanceof WrongChain) throw error
          throw (retry === 'resend' && uncertain) || new RpcUrlError(url.endpoint.label, error)
        }
        becomePrimary(next)
        url = next
      }
    }
  }

  const retryOf = (method: string): Retry => (SAME_BYTES_AGAIN.has(method) ? 'resend' : 'unreached')
  /** A batch's refusals after an uncertain send: the uncertain failure stands ("already known" is taken). */
  const batchSent: Sent<ReadonlyArray<BatchOutcome>> = (outcomes, uncertain) =>
    outcomes.map((o) => (o.ok || isAlreadyKnown(classifyRpcError(o.error)) ? o : { ok: false, error: uncertain }))

  return {
    rpcUrl: first.rpcUrl,
    timeoutMs,
    pollingIntervalMs: first.pollingIntervalMs,
    read: (method, params) =>
      run(
        (endpoint, firstTry, remainingMs) =>
          firstTry ? endpoint.read(method, params) : endpoint.callWithTimeout(method, params ?? [], remainingMs),
        timeoutMs,
        'read',
      ),
    write: (method, params) =>
      run((endpoint, _, ms) => endpoint.callWithTimeout(method, params ?? [], ms), timeoutMs, retryOf(method)),
    writeBatch: (calls) =>
      run(
        (endpoint, _, ms) => endpoint.writeBatch(calls, ms),
        timeoutMs,
        calls.every((call) => retryOf(call.method) === 'resend') ? 'resend' : 'unreached',
        batchSent,
      ),
    callWithTimeout: (method, params, boundMs) =>
      run((endpoint, _, ms) => endpoint.callWithTimeout(method, params, ms), boundMs, retryOf(method)),
    checkUrls: async () => {
      // Without an expected chain id the first URL that answers sets it: one at a time until then.
      const statuses: RpcUrlStatus[] = []
      let k = 0
      for (; k < urls.length && expected === undefined; k++) statuses.push(await statusOf(urls[k]!))
      return [...statuses, ...(await Promise.all(urls.slice(k).map(statusOf)))]
    },
    onPrimaryChange: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: () => {
      for (const endpoint of endpoints) endpoint.close()
    },
  }
}
