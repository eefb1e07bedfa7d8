import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { HttpMiddleware } from './http-context.js'

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
