import { createHash, randomUUID } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import { isPermit2Request, isSvmRequest, type FamilyRequest, type SettleOptions } from '@x402-facilitator/domain'
import type { Endpoint, HttpFailure } from '../answers/answer-cases.js'
import { failureTerms, type AnswerSettings } from '../answers/answer-map.js'
import { answerMalformed, answerSettle, answerVerify } from '../answers/http-answer.js'
import { receiptOfSettle } from '../answers/settlement-receipts.js'
import { dialectOf, type DecodedRequest, type Dialect, type Dialects } from '../dialects/dialect.js'
import { catalogAfterSettle, EXTENSION_RESPONSES } from '../discovery/catalog-after-settle.js'
import type { HttpDeps } from '../http-deps.js'
import { sendAnswer, sendFailure, type HttpContext, type HttpMiddleware } from '../http-context.js'
import { networkTokensOf, tokenNamedBy } from '../served-networks.js'

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** Only JSON reaches the decoder: anything else is a 415 in the endpoint's own shape. */
export const requireJson =
  (endpoint: Endpoint): HttpMiddleware =>
  async (ctx, next) => {
    if (!ctx.is('application/json', '+json')) return sendFailure(ctx, endpoint, { _tag: 'NotJson' })
    await next()
  }

/**
 * The body, decoded by the dialect its shape names; a malformed body is answered 400 in that dialect and comes back
 * undefined.
 */
const decoded = (
  ctx: HttpContext,
  endpoint: 'verify' | 'settle',
  dialects: Dialects,
): (DecodedRequest & { dialect: Dialect }) | undefined => {
  const dialect = dialectOf(ctx.request.body, dialects)
  const input = dialect.decode(ctx.request.body)
  if (E.isLeft(input)) {
    sendAnswer(ctx, answerMalformed(endpoint, input.left, dialect.wording, ctx))
    return undefined
  }
  return { ...input.right, dialect }
}

/** A decoded request's answer is worded in its dialect, for its network, with amounts in the token it names. */
const answerTo = (
  ctx: HttpContext,
  deps: HttpDeps,
  { request, dialect }: { request: FamilyRequest; dialect: Dialect },
) => {
  const settings: AnswerSettings = {
    token: tokenNamedBy(deps.networks, request.requirements),
    retryAfterSeconds: ctx.retryAfterSeconds,
    explainMechanism: ctx.explainMechanism,
    networkTokens: networkTokensOf(deps.networks, request.requirements.network),
  }
  return { wording: dialect.wordingFor(request), settings }
}

export const verifyRoute =
  (deps: HttpDeps, dialects: Dialects): HttpMiddleware =>
  async (ctx) => {
    const input = decoded(ctx, 'verify', dialects)
    if (input === undefined) return
    const { wording, settings } = answerTo(ctx, deps, input)
    sendAnswer(ctx, answerVerify(await deps.verifyPayment(input.request)(), wording, settings))
  }

/**
 * A digest of the canonical request: the decoded payment and requirements (docs/ARCHITECTURE.md §5.2) — x402
 * version, scheme, network, signature, the authorization's fields, and the requirements' scheme, network, amount,
 * asset, payTo and maxTimeoutSeconds. Not the JSON spelling, field order, unknown fields nor `extra`: a retry matches
 * whatever the spelling, and any change to what is paid or how long to wait is another request. Nor the
 * `payment-identifier` id (it is the key, kept beside the request): one payment under its id or a header hashes the same.
 */
const requestHash = (request: FamilyRequest): string =>
  createHash('sha256')
    .update(JSON.stringify(request, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)))
    .digest('hex')

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
    // Each request its own, also under one Idempotency-Key: a duplicate arriving while the original is in flight does
    // not share its success; only a replay after the success was answered gets it again (docs/ARCHITECTURE.md §5.2).
    answerId: randomUUID(),
    caller,
    requestHash: requestHash(input.request),
    ...(key === '' ? {} : { idempotencyKey: `${caller}:${key}` }),
  }
}

/**
 * A settle's Idempotency-Key (docs/ARCHITECTURE.md §5.2): the header, or the payload's `payment-identifier` id, which
 * is that caller's key under the same name; both only when they are equal. '' without either.
 */
const idempotencyKeyOf = (
  header: string,
  paymentId: string | undefined,
): E.Either<Extract<HttpFailure, { _tag: 'InvalidIdempotencyKey' | 'IdempotencyKeyMismatch' }>, string> => {
  if (header !== '' && !IDEMPOTENCY_KEY.test(header)) return E.left({ _tag: 'InvalidIdempotencyKey' })
  if (paymentId === undefined) return E.right(header)
  return header !== '' && header !== paymentId ? E.left({ _tag: 'IdempotencyKeyMismatch' }) : E.right(paymentId)
}

const isUpto = (request: FamilyRequest): boolean =>
  !isSvmRequest(request) &&
  isPermit2Request(request) &&
  (request.payload.scheme === 'upto' || request.requirements.scheme === 'upto')

export const settleRoute =
  (deps: HttpDeps, dialects: Dialects): HttpMiddleware =>
  async (ctx) => {
    const input = decoded(ctx, 'settle', dialects)
    if (input === undefined) return
    const idempotencyKey = idempotencyKeyOf(ctx.get('Idempotency-Key'), input.paymentId)
    if (E.isLeft(idempotencyKey) && idempotencyKey.left._tag === 'InvalidIdempotencyKey') {
      return sendFailure(ctx, 'settle', idempotencyKey.left)
    }
    const { wording, settings } = answerTo(ctx, deps, input)
    if (E.isLeft(idempotencyKey)) {
      const { status, reasonCode, message } = failureTerms(idempotencyKey.left, settings)
      return sendAnswer(ctx, { status, reasonCode, body: wording.notSettled(reasonCode, message) })
    }
    const key = idempotencyKey.right
    const { payTo } = input.request.requirements
    const { uptoPayees } = ctx.state
    const uptoRefused = uptoPayees === undefined ? deps.uptoWithoutKeys !== true : !uptoPayees.includes(payTo)
    if (isUpto(input.request) && uptoRefused) {
      const refusal =
        uptoPayees === undefined
          ? { _tag: 'UptoNeedsApiKey' as const }
          : { _tag: 'UptoCallerNotAllowed' as const, payTo }
      const { status, reasonCode, message } = failureTerms(refusal, settings)
      return sendAnswer(ctx, { status, reasonCode, body: wording.notSettled(reasonCode, message) })
    }
    const result = await deps.settlePayment(input.request, settleOptions(key, ctx, input))()
    const receipt = E.isRight(result) ? receiptOfSettle(deps, input.request, result.right) : undefined
    const { declarationOf } = input.dialect
    const catalogued = await catalogAfterSettle(deps.discovery, {
      networks: deps.networks,
      logger: deps.logger,
      request: input.request,
      result,
      declared: () => (declarationOf === undefined ? { _tag: 'None' } : declarationOf(ctx.request.body)),
    })
    if (catalogued !== undefined) ctx.set(EXTENSION_RESPONSES, catalogued)
    sendAnswer(ctx, answerSettle(result, wording, settings, receipt))
  }
