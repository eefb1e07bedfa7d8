import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { createPublicClient, http, RpcRequestError, type PublicClient } from 'viem'

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
  /** A viem client over the same node, for what needs one (not used on the hot paths). */
  readonly readClient: PublicClient
  /** Reads: the calls made in one turn of the event loop leave together as one JSON-RPC batch. */
  readonly read: Call
  /** Broadcasts: one HTTP request each, so a send never waits behind a batch of reads, nor reads behind it. */
  readonly write: Call
  /**
   * Several broadcasts as one JSON-RPC batch, in the order given; each settles on its own (the node's answer or its
   * refusal); the promise rejects only when the request as a whole failed (no answer, transport).
   */
  readonly writeBatch: (calls: ReadonlyArray<{ readonly method: string; readonly params: ReadonlyArray<unknown> }>) => Promise<ReadonlyArray<BatchOutcome>>
  /** One call with its own time bound (an EIP-7966 sync send waits for the receipt). */
  readonly callWithTimeout: (method: string, params: ReadonlyArray<unknown>, timeoutMs: number) => Promise<unknown>
}

export type BatchOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: unknown }

/** The same name as viem's, so `classifyRpcError` reads it as "no answer in time". */
class TimeoutError extends Error {
  override readonly name = 'TimeoutError'
}

/** A non-2xx answer or an answer that is not JSON-RPC: the node may have processed the request. */
class HttpAnswerError extends Error {
  override readonly name = 'HttpRequestError'
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
  }
}

interface JsonRpcAnswer {
  readonly id?: unknown
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

interface Pending {
  readonly body: { method: string; params: unknown[] }
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

const MAX_BATCH = 500

/**
 * JSON-RPC over keep-alive HTTP with node's own client: measured far cheaper per call than viem's `http` transport
 * (fetch, request objects, retry and error wrapping), which dominated a verify's CPU time. Errors keep the shapes
 * `classifyRpcError` reads: `RpcRequestError` (the node answered), `TimeoutError`, the socket's own error (its `code`).
 */
export const makeChainRpc = ({ rpcUrl, rpcTimeoutMs = 10_000, pollingIntervalMs = 50, onHttpRequest }: ChainRpcOptions): ChainRpc => {
  const url = new URL(rpcUrl)
  const secure = url.protocol === 'https:'
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 256 }) : new HttpAgent({ keepAlive: true, maxSockets: 256 })
  const send = secure ? httpsRequest : httpRequest
  const headers = { 'content-type': 'application/json', ...(url.username ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` } : {}) }
  let nextId = 1

  /** One HTTP POST: the parsed JSON answer, or an error within `timeoutMs`. */
  const post = (payload: string, timeoutMs: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      onHttpRequest?.()
      let settled = false
      const finish = (error: unknown, value?: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (error === undefined) resolve(value)
        else reject(error)
      }
      const req = send(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('error', (error) => finish(error))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            let parsed: unknown
            try {
              parsed = JSON.parse(text)
            } catch {
              finish(new HttpAnswerError(`HTTP ${res.statusCode}: not JSON: ${text.slice(0, 200)}`, res.statusCode))
              return
            }
            const status = res.statusCode ?? 0
            // A JSON-RPC error may come with a 4xx/5xx status: the node answered all the same.
            if (status >= 200 && status < 300) finish(undefined, parsed)
            else if (parsed !== null && typeof parsed === 'object' && 'error' in parsed) finish(undefined, parsed)
            else finish(new HttpAnswerError(`HTTP ${status}: ${text.slice(0, 200)}`, status))
          })
        },
      )
      const timer = setTimeout(() => {
        const error = new TimeoutError(`the RPC did not answer within ${timeoutMs} ms`)
        finish(error)
        req.destroy(error)
      }, timeoutMs)
      req.on('error', (error) => finish(error))
      req.end(payload)
    })

  const answerOf = (pending: Pending, answer: JsonRpcAnswer | undefined) => {
    if (answer === undefined || answer === null || typeof answer !== 'object') {
      pending.reject(new HttpAnswerError('the node left a call of the batch unanswered'))
    } else if (answer.error) {
      pending.reject(new RpcRequestError({ body: pending.body, error: answer.error, url: rpcUrl }))
    } else pending.resolve(answer.result)
  }

  const single = async (method: string, params: ReadonlyArray<unknown> | undefined, timeoutMs: number): Promise<unknown> => {
    const body = { method, params: params ? [...params] : [] }
    const answer = (await post(JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...body }), timeoutMs)) as JsonRpcAnswer
    if (answer === null || typeof answer !== 'object') throw new HttpAnswerError('the node answered no JSON-RPC object')
    if (answer.error) throw new RpcRequestError({ body, error: answer.error, url: rpcUrl })
    return answer.result
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
        const [only] = part as [Pending]
        single(only.body.method, only.body.params, rpcTimeoutMs).then(only.resolve, only.reject)
        continue
      }
      const firstId = nextId
      nextId += part.length
      const payload = JSON.stringify(part.map((p, k) => ({ jsonrpc: '2.0', id: firstId + k, ...p.body })))
      post(payload, rpcTimeoutMs).then(
        (answers) => {
          if (!Array.isArray(answers)) {
            // A node without batches answers one error for the whole request.
            for (const p of part) answerOf(p, answers as JsonRpcAnswer)
            return
          }
          const byId = new Map<unknown, JsonRpcAnswer>()
          for (const a of answers as JsonRpcAnswer[]) if (a !== null && typeof a === 'object') byId.set(a.id, a)
          part.forEach((p, k) => answerOf(p, byId.get(firstId + k)))
        },
        (error: unknown) => {
          for (const p of part) p.reject(error)
        },
      )
    }
  }

  const read: Call = (method, params) =>
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
    timeoutMs: rpcTimeoutMs,
    pollingIntervalMs,
    readClient: createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: rpcTimeoutMs }), pollingInterval: pollingIntervalMs }),
    read,
    write: (method, params) => single(method, params, rpcTimeoutMs),
    writeBatch: async (calls) => {
      if (calls.length === 1) {
        const [only] = calls as [{ method: string; params: ReadonlyArray<unknown> }]
        try {
          return [{ ok: true, result: await single(only.method, only.params, rpcTimeoutMs) }]
        } catch (error) {
          if ((error as { name?: unknown }).name === 'RpcRequestError') return [{ ok: false, error }]
          throw error
        }
      }
      const firstId = nextId
      nextId += calls.length
      const bodies = calls.map((c) => ({ method: c.method, params: [...c.params] }))
      const answers = await post(JSON.stringify(bodies.map((b, k) => ({ jsonrpc: '2.0', id: firstId + k, ...b }))), rpcTimeoutMs)
      const byId = new Map<unknown, JsonRpcAnswer>()
      if (Array.isArray(answers)) for (const a of answers as JsonRpcAnswer[]) if (a !== null && typeof a === 'object') byId.set(a.id, a)
      return bodies.map((body, k): BatchOutcome => {
        const answer = Array.isArray(answers) ? byId.get(firstId + k) : (answers as JsonRpcAnswer)
        if (answer === undefined || answer === null || typeof answer !== 'object') return { ok: false, error: new HttpAnswerError('the node left a call of the batch unanswered') }
        if (answer.error) return { ok: false, error: new RpcRequestError({ body, error: answer.error, url: rpcUrl }) }
        return { ok: true, result: answer.result }
      })
    },
    callWithTimeout: (method, params, timeoutMs) => single(method, params, timeoutMs),
  }
}
