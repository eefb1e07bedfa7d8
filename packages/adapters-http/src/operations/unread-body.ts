import type { IncomingMessage } from 'node:http'
import type { HttpMiddleware } from '../http-context.js'

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
