import type { Middleware } from 'koa'
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import { endpointOf, failureBody } from '../endpoint.js'

export interface RateLimit {
  /** Requests allowed per client per window. */
  readonly points: number
  readonly windowSeconds: number
}

/** Per API key, or per client address without keys (`ctx.ip`: the socket's, or X-Forwarded-For behind a trusted proxy). */
export const rateLimit = ({ points, windowSeconds }: RateLimit): Middleware => {
  const limiter = new RateLimiterMemory({ points, duration: windowSeconds })
  return async (ctx, next) => {
    const client = typeof ctx.state.apiKeyId === 'string' ? `key:${ctx.state.apiKeyId}` : `ip:${ctx.ip}`
    try {
      await limiter.consume(client)
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
      ctx.status = 429
      ctx.set('Retry-After', String(retryAfter))
      ctx.body = failureBody(endpointOf(ctx.path), 'rate_limited', `too many requests: at most ${points} per ${windowSeconds} s; retry in ${retryAfter} s`)
      ctx.state.reasonCode = 'rate_limited'
      return
    }
    await next()
  }
}
