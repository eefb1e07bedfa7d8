import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

export interface HttpPost {
  /** One HTTP POST of a JSON payload: the parsed JSON answer, or an error within `timeoutMs`. */
  readonly post: (payload: string, timeoutMs: number) => Promise<unknown>
  /** Destroys the keep-alive sockets, idle or in use. */
  readonly close: () => void
}

/** The same name as viem's, so `classifyRpcError` reads it as "no answer in time". */
class TimeoutError extends Error {
  override readonly name = 'TimeoutError'
}

/** A non-2xx answer or an answer that is not JSON-RPC: the node may have processed the request. */
export class HttpAnswerError extends Error {
  override readonly name = 'HttpRequestError'
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
  }
}

/** `user:password` of a URL, decoded, for a Basic authorization header. */
/**
 * How an RPC URL is named in errors and logs: scheme, host and port only. Providers put API keys in the path, the
 * query or the user info, and an error's text travels to logs and answers.
 */
export const rpcUrlLabel = (rpcUrl: string): string => {
  try {
    const { protocol, host } = new URL(rpcUrl)
    return `${protocol}//${host}`
  } catch {
    return 'the RPC URL'
  }
}

const userInfo = (url: URL): string => `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`

/**
 * POSTs over keep-alive HTTP(S) with node's own client, to one URL (its user and password, if any, as Basic
 * authorization). Errors keep the shapes `classifyRpcError` reads: `TimeoutError`, `HttpRequestError` (with the
 * status), the socket's own error (its `code`).
 */
export const makeHttpPost = (rpcUrl: string, onHttpRequest?: () => void): HttpPost => {
  const url = new URL(rpcUrl)
  const secure = url.protocol === 'https:'
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 256 })
    : new HttpAgent({ keepAlive: true, maxSockets: 256 })
  const send = secure ? httpsRequest : httpRequest
  const headers = {
    'content-type': 'application/json',
    ...(url.username
      ? {
          authorization: `Basic ${Buffer.from(userInfo(url)).toString('base64')}`,
        }
      : {}),
  }
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

  return { post, close: () => agent.destroy() }
}
