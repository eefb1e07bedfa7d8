import cors from '@koa/cors'
import Router from '@koa/router'
import Koa from 'koa'
import bodyParser from 'koa-bodyparser'
import helmet from 'koa-helmet'
import { EXTENSION_RESPONSES } from './discovery/catalog-after-settle.js'
import { specDialect } from './dialects/spec-dialect.js'
import { x402V1Dialect } from './dialects/x402-v1-dialect.js'
import { x402V2Dialect } from './dialects/x402-v2-dialect.js'
import type { HttpDeps } from './http-deps.js'
import type { HttpMiddleware, HttpSettings, HttpState } from './http-context.js'
import { accessLog, drainUnreadBody, errorHandler, fallback, requestId } from './request-middleware.js'
import { requireApiKey } from './operations/api-keys.js'
import { httpMetrics } from './operations/http-metrics.js'
import { metricsRoute } from './operations/metrics-route.js'
import { healthRoute, readinessRoute } from './operations/probes.js'
import { rateLimit } from './operations/rate-limit.js'
import { openApiRoute } from './routes/openapi-route.js'
import { requireOperatorToken } from './operations/operator-token.js'
import { discoveryListRoute, discoverySearchRoute, hideResourceRoute } from './routes/discovery-routes.js'
import { deliveriesRoute } from './routes/operator-routes.js'
import { requireJson, settleRoute, verifyRoute } from './routes/payment-routes.js'
import { settlementByAuthorizationRoute, settlementByHashRoute } from './routes/settlement-routes.js'
import { supportedRoute } from './routes/supported-route.js'
import { checkServed, firstNetwork } from './served-networks.js'

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024

/** The koa application: routes of the spec (and of x402 v2 on the same paths), answers of docs/ARCHITECTURE.md §4. */
export const makeHttpApp = (deps: HttpDeps): Koa => {
  checkServed(deps.networks)
  const limit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES
  const json = bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limit}b`,
    strict: false,
  })
  const dialects = { spec: specDialect(deps), x402V1: x402V1Dialect(deps), x402V2: x402V2Dialect(deps) }

  // `supported`, the probes and the OpenAPI document stay open; what spends gas or reveals settlements needs a key.
  const guarded: HttpMiddleware[] = [
    ...(deps.apiKeys?.length ? [requireApiKey(deps.apiKeys, deps.uptoPayees)] : []),
    ...(deps.rateLimit ? [rateLimit(deps.rateLimit)] : []),
  ]

  const router = new Router<HttpState, HttpSettings>()
  router.post('/api/facilitator/verify', ...guarded, requireJson('verify'), json, verifyRoute(deps, dialects))
  router.post('/api/facilitator/settle', ...guarded, requireJson('settle'), json, settleRoute(deps, dialects))
  router.get('/api/facilitator/supported', supportedRoute(deps))
  router.get('/api/facilitator/settlements', ...guarded, settlementByAuthorizationRoute(deps))
  router.get('/api/facilitator/settlements/:txHash', ...guarded, settlementByHashRoute(deps))
  router.get('/healthz', healthRoute())
  if (deps.readiness) router.get('/readyz', readinessRoute(deps.readiness))
  if (deps.metrics) router.get('/metrics', metricsRoute(deps.metrics))
  router.get('/openapi.json', openApiRoute())
  const limited = deps.rateLimit ? [rateLimit(deps.rateLimit)] : []
  // Discovery is public (rate-limited, cacheable): anyone may find what is paid for here.
  router.get('/api/facilitator/discovery/resources', ...limited, discoveryListRoute(deps))
  router.get('/api/facilitator/discovery/search', ...limited, discoverySearchRoute(deps))
  if (deps.operator) {
    const operator = [...limited, requireOperatorToken(deps.operator.token)]
    router.get('/api/facilitator/operator/deliveries', ...operator, deliveriesRoute(deps.operator))
    router.post('/api/facilitator/operator/discovery/hide', ...operator, json, hideResourceRoute(deps))
  }

  // koa's maxIpsCount keeps the rightmost n addresses (0 would keep all: the client's own leftmost one would win).
  const trustedProxies = deps.trustedProxies ?? 0
  const app = new Koa<HttpState>({
    proxy: trustedProxies > 0,
    maxIpsCount: trustedProxies,
  })
  const settings: HttpSettings = {
    token: firstNetwork(deps.networks).tokens[0]!,
    retryAfterSeconds: deps.retryAfterSeconds ?? 2,
    explainMechanism: deps.explainMechanismRefusal,
  }
  Object.assign(app.context, settings)
  app.silent = true
  app.use(requestId())
  app.use(helmet())
  if (deps.corsOrigins?.length) {
    const allowed = new Set(deps.corsOrigins)
    app.use(
      cors({
        origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
        allowHeaders: ['Content-Type', 'Authorization', 'Idempotency-Key', 'X-Request-Id'],
        exposeHeaders: ['X-Request-Id', 'Retry-After', 'Idempotency-Replayed', EXTENSION_RESPONSES],
      }),
    )
  }
  app.use(accessLog(deps.logger))
  app.use(drainUnreadBody())
  app.use(errorHandler(deps.logger, limit))
  if (deps.metrics) app.use(httpMetrics(deps.metrics))
  app.use(fallback(router))
  app.use(router.routes())
  return app
}
