import Router from '@koa/router'
import Koa from 'koa'
import bodyParser from 'koa-bodyparser'
import { accessLog } from './access-log.js'
import { specDialect } from './dialects/spec-dialect.js'
import { x402V2Dialect } from './dialects/x402-v2-dialect.js'
import { errorHandler } from './error-handler.js'
import type { HttpDeps } from './http-deps.js'
import { requestId } from './request-id.js'
import { fallback } from './routes/fallback.js'
import { requireJson, settleRoute, verifyRoute } from './routes/payment-routes.js'
import { settlementByAuthorizationRoute, settlementByHashRoute } from './routes/settlement-routes.js'
import { supportedRoute } from './routes/supported-route.js'

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024

/** The koa application: routes of the spec (and of x402 v2 on the same paths), answers of ARCHITECTURE §4. */
export const makeHttpApp = (deps: HttpDeps): Koa => {
  const limit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES
  const retryAfter = deps.retryAfterSeconds ?? 2
  const json = bodyParser({ enableTypes: ['json'], jsonLimit: `${limit}b`, strict: false })
  const dialects = { spec: specDialect(deps), x402V2: x402V2Dialect(deps) }

  const router = new Router({ prefix: '/api/facilitator' })
  router.post('/verify', requireJson('verify'), json, verifyRoute(deps, dialects, retryAfter))
  router.post('/settle', requireJson('settle'), json, settleRoute(deps, dialects, retryAfter))
  router.get('/supported', supportedRoute(deps))
  router.get('/settlements', settlementByAuthorizationRoute(deps, retryAfter))
  router.get('/settlements/:txHash', settlementByHashRoute(deps, retryAfter))

  const app = new Koa()
  app.silent = true
  app.use(requestId())
  app.use(accessLog(deps.logger))
  app.use(errorHandler(deps.logger, limit))
  app.use(fallback(router))
  app.use(router.routes())
  return app
}
