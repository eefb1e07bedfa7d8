import type { Middleware } from 'koa'
import type { Logger } from 'pino'

/** One structured line per request; bodies are never logged (they carry signatures). */
export const accessLog =
  (logger: Logger): Middleware =>
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
