import type { RouterContext } from '@koa/router'
import type { Middleware } from 'koa'
import { Counter, Histogram, type Registry } from 'prom-client'
import type { HttpSettings, HttpState } from '../http-context.js'

/**
 * The router marks the pattern it matched (`/settlements/:txHash`) on the context it shares with the app's
 * middlewares.
 */
type MatchedRoute = Pick<RouterContext<HttpState, HttpSettings>, '_matchedRoute'>

/** Requests by route, status and reason code; latency of verify and settle. */
export const httpMetrics = (registry: Registry): Middleware<HttpState, HttpSettings & MatchedRoute> => {
  const requests = new Counter({
    name: 'facilitator_http_requests_total',
    help: 'HTTP requests by route, status and reason code',
    labelNames: ['route', 'method', 'status', 'reason_code'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'facilitator_http_request_duration_seconds',
    help: 'Latency of verify and settle (and the other routes)',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  return async (ctx, next) => {
    const stop = latency.startTimer()
    try {
      await next()
    } finally {
      // The matched route pattern, never the raw path: unknown paths must not grow the label set.
      const route = String(ctx._matchedRoute ?? 'unmatched')
      stop({ route })
      requests.inc({ route, method: ctx.method, status: String(ctx.status), reason_code: ctx.state.reasonCode ?? '' })
    }
  }
}
