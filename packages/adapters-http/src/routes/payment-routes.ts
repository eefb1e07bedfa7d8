import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import type { SettleOptions } from '@x402-facilitator/domain'
import type { DecodedRequest, Dialect } from '../dialects/dialect.js'
import { isX402V2Body } from '../dialects/x402-v2-dialect.js'
import { failure, type Endpoint } from '../endpoint.js'
import type { HttpDeps } from '../http-deps.js'
import type { HttpContext, HttpMiddleware } from '../http-state.js'
import { requestHash } from '../request-hash.js'
import { respond } from '../respond.js'

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

export interface Dialects {
  readonly spec: Dialect
  readonly x402V2: Dialect
}

/** Only JSON reaches the decoder: anything else is a 415 in the endpoint's own shape. */
export const requireJson =
  (endpoint: Endpoint): HttpMiddleware =>
  async (ctx, next) => {
    if (!ctx.is('application/json', '+json')) {
      return respond(ctx, failure(endpoint, 415, 'unsupported_media_type', 'body: Content-Type must be application/json'))
    }
    await next()
  }

/**
 * The body, decoded by the dialect its shape names (both run the same use cases); a malformed body is answered
 * 400 in that dialect and comes back undefined.
 */
const decoded = (ctx: HttpContext, endpoint: 'verify' | 'settle', dialects: Dialects): (DecodedRequest & { dialect: Dialect }) | undefined => {
  const body = ctx.request.body
  const dialect = isX402V2Body(body) ? dialects.x402V2 : dialects.spec
  const input = dialect.decode(body)
  if (E.isLeft(input)) {
    respond(ctx, dialect.malformed(endpoint, input.left))
    return undefined
  }
  return { ...input.right, dialect }
}

export const verifyRoute =
  (deps: HttpDeps, dialects: Dialects): HttpMiddleware =>
  async (ctx) => {
    const input = decoded(ctx, 'verify', dialects)
    if (input === undefined) return
    respond(ctx, input.dialect.verifyAnswer(await deps.verifyPayment(input.request)()))
  }

/**
 * Who is asking: its API key's id when there are keys, else its address (`ctx.ip`, X-Forwarded-For behind a trusted
 * proxy). It scopes an Idempotency-Key, so two clients' keys never meet, and names the caller whose keyless retry may
 * have the payment's one success (docs/ARCHITECTURE.md §5.2).
 */
const callerOf = (ctx: HttpContext): string => ctx.state.apiKeyId ?? `ip:${ctx.ip}`

const settleOptions = (key: string, ctx: HttpContext, input: DecodedRequest): SettleOptions => {
  const caller = callerOf(ctx)
  return {
    requirementsRecord: input.requirementsRecord,
    // Requests under one Idempotency-Key are one answer: the original and a replay arriving while it is in flight
    // share the payment's one success, whichever marks it first (docs/ARCHITECTURE.md §5.2).
    answerId: key === '' ? randomUUID() : `idempotency:${caller}:${key}`,
    caller,
    requestHash: requestHash(input.request),
    ...(key === '' ? {} : { idempotencyKey: `${caller}:${key}` }),
  }
}

export const settleRoute =
  (deps: HttpDeps, dialects: Dialects): HttpMiddleware =>
  async (ctx) => {
    const input = decoded(ctx, 'settle', dialects)
    if (input === undefined) return
    const key = ctx.get('Idempotency-Key')
    if (key !== '' && !IDEMPOTENCY_KEY.test(key)) {
      return respond(ctx, failure('settle', 400, 'invalid_idempotency_key', 'Idempotency-Key: expected 1 to 255 visible ASCII characters'))
    }
    respond(ctx, input.dialect.settleAnswer(await deps.settlePayment(input.request, settleOptions(key, ctx, input))()))
  }
