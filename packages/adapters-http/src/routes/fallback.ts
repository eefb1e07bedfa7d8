import type Router from '@koa/router'
import { sendFailure, type HttpMiddleware, type HttpSettings, type HttpState } from '../http-context.js'

/** Unknown path → 404; known path, other method → 405 with `Allow` (never the router's 501). */
export const fallback =
  (router: Router<HttpState, HttpSettings>): HttpMiddleware =>
  async (ctx, next) => {
    await next()
    if (ctx.body !== undefined || ctx.status !== 404) return
    const allowed = [...new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods))]
    const { method, path } = ctx
    if (allowed.length === 0) return sendFailure(ctx, 'other', { _tag: 'NotFound', method, path })
    sendFailure(ctx, 'other', { _tag: 'MethodNotAllowed', method, path, allowed })
  }
