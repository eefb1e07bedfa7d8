import * as E from 'fp-ts/lib/Either.js'
import type { Context, Middleware } from 'koa'
import type { HttpDeps } from '../http-deps.js'
import { settleAnswer, verifyAnswer, type Answer } from '../answers.js'
import { failureBody, type Endpoint } from '../endpoint.js'
import { requestHash } from '../request-hash.js'

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

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

const badRequest = (ctx: Context, endpoint: Endpoint, code: string, message: string) => {
  ctx.status = 400
  ctx.body = failureBody(endpoint, code, message)
  ctx.state.reasonCode = code
}

export const verifyRoute =
  (deps: HttpDeps, retryAfterSeconds: number): Middleware =>
  async (ctx) => {
    const decoded = deps.decodePaymentRequest(ctx.request.body)
    if (E.isLeft(decoded)) return badRequest(ctx, 'verify', decoded.left.reasonCode, decoded.left.message)
    send(ctx, verifyAnswer(await deps.verifyPayment(decoded.right)(), deps.policy), retryAfterSeconds)
  }

export const settleRoute =
  (deps: HttpDeps, retryAfterSeconds: number): Middleware =>
  async (ctx) => {
    const decoded = deps.decodePaymentRequest(ctx.request.body)
    if (E.isLeft(decoded)) return badRequest(ctx, 'settle', decoded.left.reasonCode, decoded.left.message)
    const idempotencyKey = ctx.get('Idempotency-Key')
    if (idempotencyKey !== '' && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      return badRequest(ctx, 'settle', 'invalid_idempotency_key', 'Idempotency-Key: expected 1 to 255 visible ASCII characters')
    }
    const body = ctx.request.body as { paymentRequirements: Record<string, unknown> }
    const result = await deps.settlePayment(decoded.right, {
      requirementsRecord: body.paymentRequirements,
      ...(idempotencyKey === '' ? {} : { idempotencyKey, requestHash: requestHash(decoded.right) }),
    })()
    send(ctx, settleAnswer(result, deps.policy), retryAfterSeconds)
  }
