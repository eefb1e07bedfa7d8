import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import { endpointOf } from '../answers/http-answer.js'
import { sendFailure, type HttpMiddleware } from '../http-context.js'

export interface RateLimit {
  /** Requests allowed per client per window. */
  readonly points: number
  readonly windowSeconds: number
}

/**
 * Per API key, or per client address without keys (`ctx.ip`: the socket's, or behind n trusted proxies the n-th
 * X-Forwarded-For entry from the right).
 */
export const rateLimit = ({ points, windowSeconds }: RateLimit): HttpMiddleware => {
  const limiter = new RateLimiterMemory({ points, duration: windowSeconds })
  return async (ctx, next) => {
    const client = ctx.state.apiKeyId === undefined ? `ip:${ctx.ip}` : `key:${ctx.state.apiKeyId}`
    try {
      await limiter.consume(client)
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
      return sendFailure(ctx, endpointOf(ctx.path), { _tag: 'RateLimited', points, windowSeconds, retryAfter })
    }
    await next()
  }
}
