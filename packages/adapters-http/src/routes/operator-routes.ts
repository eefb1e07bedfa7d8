import type { DeliveryQuery } from '@x402-facilitator/domain'
import type { HttpMiddleware } from '../http-context.js'
import type { OperatorDeps } from '../http-deps.js'

const STATES = ['pending', 'delivered', 'dead'] as const
const MAX_LIMIT = 500

const refuse = (status: number, errorCode: string, error: string) => ({ status, body: { error, errorCode } })

/** The query of `GET /operator/deliveries`, or the first mistake in it. */
const deliveryQuery = (query: Record<string, unknown>) => {
  const one = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined)
  for (const [name, value] of Object.entries(query))
    if (typeof value !== 'string') return refuse(400, 'invalid_query', `${name} must be given once`)
  const state = one('state')
  if (state !== undefined && !(STATES as ReadonlyArray<string>).includes(state))
    return refuse(400, 'invalid_query', `state must be one of ${STATES.join(', ')}`)
  const settlementId = one('settlementId')
  if (settlementId !== undefined && !/^[1-9][0-9]{0,17}$/.test(settlementId))
    return refuse(400, 'invalid_query', 'settlementId must be a settlement id (a whole number)')
  const limitText = one('limit') ?? '50'
  const limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : NaN
  if (!(limit >= 1 && limit <= MAX_LIMIT)) return refuse(400, 'invalid_query', `limit must be 1 to ${MAX_LIMIT}`)
  const endpoint = one('endpoint')
  return {
    query: {
      limit,
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(state === undefined ? {} : { state: state as DeliveryQuery['state'] }),
      ...(settlementId === undefined ? {} : { settlementId }),
    },
  }
}

/**
 * `GET /api/facilitator/operator/deliveries` (docs/API.md): recent webhook deliveries, newest first (behind the
 * operator's token: `requireOperatorToken`).
 */
export const deliveriesRoute =
  (operator: OperatorDeps): HttpMiddleware =>
  async (ctx) => {
    const parsed = deliveryQuery(ctx.query)
    if ('status' in parsed) {
      ctx.status = parsed.status
      ctx.body = parsed.body
      return
    }
    try {
      const deliveries = await operator.recentDeliveries(parsed.query)
      ctx.body = { deliveries }
    } catch {
      ctx.set('Retry-After', '2')
      ctx.status = 503
      ctx.body = { error: 'the deliveries could not be read (database unavailable)', errorCode: 'service_unavailable' }
    }
  }
