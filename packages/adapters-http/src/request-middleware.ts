import type Router from '@koa/router'
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Logger } from 'pino'
import type { FailureCase } from './answers/answer-cases.js'
import { endpointOf } from './answers/http-answer.js'
import { sendFailure, type HttpMiddleware, type HttpSettings, type HttpState } from './http-context.js'

// What every request passes through around its route, outermost first (http-app.ts): its id and log line, the
// rest of a body its answer did not read, the one place an exception becomes an answer, and 404/405.

export const REQUEST_ID_HEADER = 'X-Request-Id'
const SANE_ID = /^[\w.:-]{1,128}$/

const isPlainObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && !Buffer.isBuffer(body)

/** Keeps a caller's request id when it is sane, else makes one; every answer carries it, error bodies too. */
export const requestId = (): HttpMiddleware => async (ctx, next) => {
  const incoming = ctx.get(REQUEST_ID_HEADER)
  const id = SANE_ID.test(incoming) ? incoming : randomUUID()
  ctx.state.requestId = id
  ctx.set(REQUEST_ID_HEADER, id)
  await next()
  if (ctx.status >= 400 && isPlainObject(ctx.body) && !('requestId' in ctx.body)) {
    ctx.body = { ...ctx.body, requestId: id }
  }
}

/** One structured line per request; bodies are never logged (they carry signatures). */
export const accessLog =
  (logger: Logger): HttpMiddleware =>
  async (ctx, next) => {
    const started = process.hrtime.bigint()
    try {
      await next()
    } finally {
      logger.info({
        reqId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        reasonCode: ctx.state.reasonCode,
      })
    }
  }

/** How much of a refused body is read and discarded before its answer; past it the connection is cut. [32 MiB] */
export const DEFAULT_UNREAD_BODY_LIMIT_BYTES = 32 * 1024 * 1024

/** Reads and discards the rest of `req` until it ends, the client goes, or `limitBytes` more have come. */
const discardRest = (req: IncomingMessage, limitBytes: number): Promise<void> =>
  new Promise((resolve) => {
    let discarded = 0
    const done = () => {
      req.off('data', onData).off('end', done).off('close', done).off('error', done)
      resolve()
    }
    const onData = (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded <= limitBytes) return
      req.pause()
      done()
    }
    req.on('data', onData).once('end', done).once('close', done).once('error', done)
    req.resume()
  })

/**
 * An answer given before the body was read (413 at its Content-Length, 401, 415, 429) goes out with `Connection:
 * close` once the rest of the body is read and discarded (a lingering close, as nginx and Express's body parser do).
 * Closed with body bytes still unread, the kernel resets the connection, and a client still writing sees EPIPE
 * instead of its answer (issue 23 item 14). The wait is bounded by `limitBytes` and by REQUEST_TIMEOUT_MS.
 */
export const drainUnreadBody =
  (limitBytes = DEFAULT_UNREAD_BODY_LIMIT_BYTES): HttpMiddleware =>
  async (ctx, next) => {
    await next()
    if (ctx.req.complete) return
    ctx.set('Connection', 'close')
    await discardRest(ctx.req, limitBytes)
  }

/** What an error of the body parser (http-errors) carries; anything may be thrown, so each field is checked. */
interface HttpishError {
  readonly status?: unknown
  readonly type?: unknown
  readonly message?: unknown
}

const httpish = (caught: unknown): HttpishError => (typeof caught === 'object' && caught !== null ? caught : {})

/** Errors the body parser raises for what a client sent: answered 4xx in the endpoint's shape. */
const clientError = ({ status, type, message }: HttpishError, limitBytes: number): FailureCase | undefined => {
  if (status === 413 || type === 'entity.too.large') return { _tag: 'PayloadTooLarge', limitBytes }
  // The JSON body parser's only 400 is a parse failure.
  if (status === 400) return { _tag: 'InvalidJson', detail: message }
  if (status === 415) return { _tag: 'UnsupportedEncoding', detail: message }
  return undefined
}

/**
 * The one place an exception becomes an answer. Client errors keep their 4xx; anything else is logged with
 * the request id and answered `unexpected_verify_error` / `unexpected_settle_error`; the process lives on.
 */
export const errorHandler =
  (logger: Logger, limitBytes: number): HttpMiddleware =>
  async (ctx, next) => {
    try {
      await next()
    } catch (caught) {
      const endpoint = endpointOf(ctx.path)
      const known = clientError(httpish(caught), limitBytes)
      if (known) return sendFailure(ctx, endpoint, known)
      logger.error({ reqId: ctx.state.requestId, err: caught, path: ctx.path }, 'unexpected error')
      sendFailure(ctx, endpoint, {
        _tag: 'UnexpectedError',
        endpoint,
        requestId: ctx.state.requestId,
      })
    }
  }

/** Unknown path → 404; known path, other method → 405 with `Allow` (never the router's 501). */
export const fallback =
  (router: Router<HttpState, HttpSettings>): HttpMiddleware =>
  async (ctx, next) => {
    await next()
    if (ctx.body !== undefined || ctx.status !== 404) return
    const allowed = [...new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods))]
    const { method, path } = ctx
    if (allowed.length === 0) return sendFailure(ctx, 'other', { _tag: 'NotFound', method, path })
    sendFailure(ctx, 'other', {
      _tag: 'MethodNotAllowed',
      method,
      path,
      allowed,
    })
  }
