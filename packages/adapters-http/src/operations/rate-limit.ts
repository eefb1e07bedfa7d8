import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import { endpointOf, failure } from '../endpoint.js'
import type { HttpMiddleware } from '../http-state.js'
import { respond } from '../respond.js'

export interface RateLimit {
  /** Requests allowed per client per window. */
  readonly points: number
  readonly windowSeconds: number
}

/** Per API key, or per client address without keys (`ctx.ip`: the socket's, or behind n trusted proxies the n-th X-Forwarded-For entry from the right). */
export const rateLimit = ({ points, windowSeconds }: RateLimit): HttpMiddleware => {
  const limiter = new RateLimiterMemory({ points, duration: windowSeconds })
  return async (ctx, next) => {
    const client = ctx.state.apiKeyId === undefined ? `ip:${ctx.ip}` : `key:${ctx.state.apiKeyId}`
    try {
      await limiter.consume(client)
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
      const message = `too many requests: at most ${points} per ${windowSeconds} s; retry in ${retryAfter} s`
      return respond(ctx, { ...failure(endpointOf(ctx.path), 429, 'rate_limited', message), headers: { 'Retry-After': String(retryAfter) } })
    }
    await next()
  }
}
