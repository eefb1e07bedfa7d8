import type Router from '@koa/router'
import { failure } from '../endpoint.js'
import type { HttpMiddleware, HttpSettings, HttpState } from '../http-state.js'
import { respond } from '../respond.js'

/** Unknown path → 404; known path, other method → 405 with `Allow` (never the router's 501). */
export const fallback =
  (router: Router<HttpState, HttpSettings>): HttpMiddleware =>
  async (ctx, next) => {
    await next()
    if (ctx.body !== undefined || ctx.status !== 404) return
    const allowed = [...new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods))]
    if (allowed.length === 0) return respond(ctx, failure('other', 404, 'not_found', `no such endpoint: ${ctx.method} ${ctx.path}`))
    const message = `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${allowed.join(', ')}`
    respond(ctx, { ...failure('other', 405, 'method_not_allowed', message), headers: { Allow: allowed.join(', ') } })
  }
