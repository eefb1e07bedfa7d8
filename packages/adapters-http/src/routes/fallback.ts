import type Router from '@koa/router'
import type { Middleware } from 'koa'

/** Unknown path → 404; known path, other method → 405 with `Allow` (never the router's 501). */
export const fallback =
  (router: Router): Middleware =>
  async (ctx, next) => {
    await next()
    if (ctx.body !== undefined || ctx.status !== 404) return
    const allowed = [...new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods))]
    if (allowed.length === 0) {
      ctx.status = 404
      ctx.body = { error: `no such endpoint: ${ctx.method} ${ctx.path}`, errorCode: 'not_found' }
      ctx.state.reasonCode = 'not_found'
      return
    }
    ctx.status = 405
    ctx.set('Allow', allowed.join(', '))
    ctx.body = { error: `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${allowed.join(', ')}`, errorCode: 'method_not_allowed' }
    ctx.state.reasonCode = 'method_not_allowed'
  }
