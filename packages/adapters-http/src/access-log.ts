import type { Logger } from 'pino'
import type { HttpMiddleware } from './http-state.js'

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
