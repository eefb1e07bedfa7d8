import { RpcRequestError } from 'viem'
import type { BatchOutcome, ChainRpc } from './chain-rpc-types.js'
import { HttpAnswerError, makeHttpPost } from './http-post.js'
import { classifyRpcError, describeRpcFailure } from './rpc-failure.js'

/** One RPC URL, as the failover (rpc-failover.ts) uses it: `writeBatch` may take its own time bound. */
export interface JsonRpcEndpoint extends ChainRpc {
  /** `#<index> (scheme://host:port)`: how the URL is named in errors, logs and metrics (never the whole URL). */
  readonly label: string
  readonly writeBatch: (
    calls: ReadonlyArray<{ readonly method: string; readonly params: ReadonlyArray<unknown> }>,
    timeoutMs?: number,
  ) => Promise<ReadonlyArray<BatchOutcome>>
}

export interface JsonRpcEndpointOptions {
  readonly rpcUrl: string
  readonly label: string
  readonly rpcTimeoutMs: number
  readonly pollingIntervalMs: number
  readonly onHttpRequest?: (label: string) => void
}

interface JsonRpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** One answer of a JSON-RPC envelope: its `id`, and its result or its error. */
type JsonRpcAnswer =
  { readonly id: unknown; readonly result: unknown } | { readonly id: unknown; readonly error: JsonRpcError }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** `value` as one JSON-RPC answer, or an `HttpAnswerError` saying why it is none (the node may have run the call). */
const decodeJsonRpcAnswer = (value: unknown, missing: string): JsonRpcAnswer | HttpAnswerError => {
  if (!isRecord(value)) return new HttpAnswerError(missing)
  const { id, error } = value
  if (error === undefined || error === null) return { id, result: value['result'] }
  if (!isRecord(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
    const written = String(JSON.stringify(error)).slice(0, 200)
    return new HttpAnswerError(`the node answered a malformed JSON-RPC error: ${written}`)
  }
  return { id, error: { code: error['code'], message: error['message'], data: error['data'] } }
}

/** One call of a request (a type, not an interface: viem's `RpcRequestError` takes it as a record). */
type Body = { readonly method: string; readonly params: unknown[] }

interface Pending {
  readonly body: Body
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

const MAX_BATCH = 500

/**
 * JSON-RPC over keep-alive HTTP with node's own client (`http-post.ts`): about a quarter of the CPU per call of viem's
 * `http` transport (fetch, request objects, retry and error wrapping), which dominated a verify's CPU time. Measured
 * with `node bench/rpc-transport.mjs` (anvil, 20,000 reads a round at concurrency 32, two runs): 12.0 µs vs 45.8 µs
 * and 11.8 µs vs 45.5 µs of CPU per read. Errors keep the shapes `classifyRpcError` reads: `RpcRequestError` (the
 * node answered), `TimeoutError`, the socket's own error (its `code`).
 */
export const makeJsonRpcEndpoint = ({
  rpcUrl,
  label,
  rpcTimeoutMs,
  pollingIntervalMs,
  onHttpRequest,
}: JsonRpcEndpointOptions): JsonRpcEndpoint => {
  const { post, close } = makeHttpPost(rpcUrl, onHttpRequest && (() => onHttpRequest(label)))
  const url = label
  let nextId = 1

  const single = async (
    method: string,
    params: ReadonlyArray<unknown> | undefined,
    timeoutMs: number,
  ): Promise<unknown> => {
    const body = { method, params: params ? [...params] : [] }
    const written = await post(JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...body }), timeoutMs)
    const answer = decodeJsonRpcAnswer(written, 'the node answered no JSON-RPC object')
    if (answer instanceof HttpAnswerError) throw answer
    if ('error' in answer) throw new RpcRequestError({ body, error: answer.error, url })
    return answer.result
  }

  const outcomeOf = (body: Body, answer: JsonRpcAnswer | HttpAnswerError): BatchOutcome => {
    if (answer instanceof HttpAnswerError) return { ok: false, error: answer }
    if ('error' in answer) return { ok: false, error: new RpcRequestError({ body, error: answer.error, url }) }
    return { ok: true, result: answer.result }
  }

  /**
   * Several calls as one JSON-RPC batch: each call's outcome, in order; rejects only when the request as a whole
   * failed.
   */
  const batch = async (bodies: ReadonlyArray<Body>, timeoutMs = rpcTimeoutMs): Promise<BatchOutcome[]> => {
    const firstId = nextId
    nextId += bodies.length
    const answers = await post(
      JSON.stringify(bodies.map((body, k) => ({ jsonrpc: '2.0', id: firstId + k, ...body }))),
      timeoutMs,
    )
    const unanswered = 'the node left a call of the batch unanswered'
    // A node without batches answers one error for the whole request.
    if (!Array.isArray(answers)) return bodies.map((body) => outcomeOf(body, decodeJsonRpcAnswer(answers, unanswered)))
    const byId = new Map<unknown, JsonRpcAnswer | HttpAnswerError>()
    for (const value of answers) if (isRecord(value)) byId.set(value['id'], decodeJsonRpcAnswer(value, unanswered))
    return bodies.map((body, k) => outcomeOf(body, byId.get(firstId + k) ?? new HttpAnswerError(unanswered)))
  }

  let queue: Pending[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    const all = queue
    queue = []
    for (let i = 0; i < all.length; i += MAX_BATCH) {
      const part = all.slice(i, i + MAX_BATCH)
      if (part.length === 1) {
        const only = part[0]!
        single(only.body.method, only.body.params, rpcTimeoutMs).then(only.resolve, only.reject)
        continue
      }
      batch(part.map((p) => p.body)).then(
        (outcomes) =>
          outcomes.forEach((outcome, k) => {
            if (outcome.ok) part[k]!.resolve(outcome.result)
            else part[k]!.reject(outcome.error)
          }),
        (error: unknown) => {
          for (const p of part) p.reject(error)
        },
      )
    }
  }

  const read: ChainRpc['read'] = (method, params) =>
    new Promise((resolve, reject) => {
      queue.push({ body: { method, params: params ? [...params] : [] }, resolve, reject })
      if (!scheduled) {
        scheduled = true
        // Everything asked in this turn of the event loop (e.g. every request parsed in one I/O phase) goes together.
        setImmediate(flush)
      }
    })

  return {
    rpcUrl,
    label,
    timeoutMs: rpcTimeoutMs,
    pollingIntervalMs,
    read,
    write: (method, params) => single(method, params, rpcTimeoutMs),
    writeBatch: async (calls, timeoutMs = rpcTimeoutMs) => {
      const bodies = calls.map((c) => ({ method: c.method, params: [...c.params] }))
      if (bodies.length !== 1) return batch(bodies, timeoutMs)
      const only = bodies[0]!
      try {
        return [{ ok: true, result: await single(only.method, only.params, timeoutMs) }]
      } catch (error) {
        if ((error as { name?: unknown }).name === 'RpcRequestError') return [{ ok: false, error }]
        throw error
      }
    },
    callWithTimeout: (method, params, timeoutMs) => single(method, params, timeoutMs),
    onPrimaryChange: () => () => undefined,
    checkUrls: async () => {
      try {
        return [{ label, chainId: Number(BigInt(String(await single('eth_chainId', [], rpcTimeoutMs)))) }]
      } catch (error) {
        return [{ label, problem: describeRpcFailure(classifyRpcError(error)) }]
      }
    },
    close,
  }
}
