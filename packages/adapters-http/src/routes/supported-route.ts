import { describeCapabilities, type FacilitatorPolicy } from '@x402-facilitator/domain'
import type { Middleware } from 'koa'

/** Capabilities change only with configuration: built once, cacheable for 60 s (spec, Limits). */
export const supportedRoute = (policy: FacilitatorPolicy): Middleware => {
  const body = describeCapabilities(policy)
  return async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=60')
    ctx.body = body
  }
}
