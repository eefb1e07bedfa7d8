import * as E from 'fp-ts/lib/Either.js'
import type { Context, Middleware } from 'koa'
import type { Answer, Dialect } from '../dialects/dialect.js'
import { isX402V2Body } from '../dialects/x402-v2-dialect.js'
import { failureBody, type Endpoint } from '../endpoint.js'
import type { HttpDeps } from '../http-deps.js'
import { requestHash } from '../request-hash.js'

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

export interface Dialects {
  readonly spec: Dialect
  readonly x402V2: Dialect
}

export const send = (ctx: Context, answer: Answer, retryAfterSeconds: number) => {
  ctx.status = answer.status
  ctx.body = answer.body
  ctx.state.reasonCode = answer.reasonCode
  if (answer.status === 503) ctx.set('Retry-After', String(retryAfterSeconds))
}

/** Only JSON reaches the decoder: anything else is a 415 in the endpoint's own shape. */
export const requireJson =
  (endpoint: Endpoint): Middleware =>
  async (ctx, next) => {
    if (!ctx.is('application/json', '+json')) {
      ctx.status = 415
      ctx.body = failureBody(endpoint, 'unsupported_media_type', 'body: Content-Type must be application/json')
      ctx.state.reasonCode = 'unsupported_media_type'
      return
    }
    await next()
  }

/** The dialect is told by the body's shape; both run the same use cases. */
const dialectOf = (dialects: Dialects, body: unknown): Dialect => (isX402V2Body(body) ? dialects.x402V2 : dialects.spec)

const decoded = (ctx: Context, endpoint: 'verify' | 'settle', dialects: Dialects) => {
  const dialect = dialectOf(dialects, ctx.request.body)
  const request = dialect.decode(ctx.request.body)
  if (E.isLeft(request)) {
    ctx.status = 400
    ctx.body = dialect.malformed(endpoint, request.left)
    ctx.state.reasonCode = request.left.reasonCode
    return undefined
  }
  return { dialect, request: request.right }
}

export const verifyRoute =
  (deps: HttpDeps, dialects: Dialects, retryAfterSeconds: number): Middleware =>
  async (ctx) => {
    const input = decoded(ctx, 'verify', dialects)
    if (input === undefined) return
    send(ctx, input.dialect.verifyAnswer(await deps.verifyPayment(input.request)()), retryAfterSeconds)
  }

export const settleRoute =
  (deps: HttpDeps, dialects: Dialects, retryAfterSeconds: number): Middleware =>
  async (ctx) => {
    const input = decoded(ctx, 'settle', dialects)
    if (input === undefined) return
    const idempotencyKey = ctx.get('Idempotency-Key')
    if (idempotencyKey !== '' && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      ctx.status = 400
      ctx.body = failureBody('settle', 'invalid_idempotency_key', 'Idempotency-Key: expected 1 to 255 visible ASCII characters')
      ctx.state.reasonCode = 'invalid_idempotency_key'
      return
    }
    // Keys are scoped to the caller's API key when there are keys (docs/ARCHITECTURE.md §5.2).
    const scope = typeof ctx.state.apiKeyId === 'string' ? `${ctx.state.apiKeyId}:` : ''
    const body = ctx.request.body as { paymentRequirements: Record<string, unknown> }
    const result = await deps.settlePayment(input.request, {
      requirementsRecord: body.paymentRequirements,
      ...(idempotencyKey === '' ? {} : { idempotencyKey: `${scope}${idempotencyKey}`, requestHash: requestHash(input.request) }),
    })()
    send(ctx, input.dialect.settleAnswer(result), retryAfterSeconds)
  }
