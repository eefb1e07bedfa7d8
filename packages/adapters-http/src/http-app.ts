import Router from '@koa/router'
import Koa from 'koa'
import bodyParser from 'koa-bodyparser'
import { accessLog } from './access-log.js'
import { errorHandler } from './error-handler.js'
import type { HttpDeps } from './http-deps.js'
import { requestId } from './request-id.js'
import { fallback } from './routes/fallback.js'
import { requireJson, settleRoute, verifyRoute } from './routes/payment-routes.js'
import { supportedRoute } from './routes/supported-route.js'

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024

/** The koa application: routes of the spec, answers of ARCHITECTURE §4. */
export const makeHttpApp = (deps: HttpDeps): Koa => {
  const limit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES
  const retryAfter = deps.retryAfterSeconds ?? 2
  const json = bodyParser({ enableTypes: ['json'], jsonLimit: `${limit}b`, strict: false })

  const router = new Router({ prefix: '/api/facilitator' })
  router.post('/verify', requireJson('verify'), json, verifyRoute(deps, retryAfter))
  router.post('/settle', requireJson('settle'), json, settleRoute(deps, retryAfter))
  router.get('/supported', supportedRoute(deps.policy))

  const app = new Koa()
  app.silent = true
  app.use(requestId())
  app.use(accessLog(deps.logger))
  app.use(errorHandler(deps.logger, limit))
  app.use(fallback(router))
  app.use(router.routes())
  return app
}
