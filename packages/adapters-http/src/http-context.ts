import type { RouterMiddleware } from '@koa/router'
import type { Address } from '@x402-facilitator/domain'
import type { Middleware, ParameterizedContext } from 'koa'
import type { Endpoint, FailureCase, ReportCase } from './answers/answer-cases.js'
import type { AnswerSettings } from './answers/answer-map.js'
import { failureAnswer, reportAnswer, type HttpAnswer } from './answers/http-answer.js'

/** What the middlewares leave on `ctx.state` for those after them. */
export interface HttpState {
  /** Set first, by `request-middleware.ts`: every answer and log line carries it. */
  requestId: string
  /** Why the answer is what it is, for the access log and metrics; unset on success. */
  reasonCode?: string
  /** A short id of the caller's API key when keys are configured (`operations/api-keys.ts`); never the key. */
  apiKeyId?: string
  /** The payees the caller's API key may settle `upto` for (set with `apiKeyId`). */
  uptoPayees?: ReadonlyArray<Address>
}

/**
 * Configuration every answer may need, set once on `app.context` (docs/ARCHITECTURE.md §6): every `ctx` inherits it,
 * so a middleware hands its `ctx` to the answer map as its settings.
 */
export type HttpSettings = AnswerSettings

export type HttpContext = ParameterizedContext<HttpState, HttpSettings>
export type HttpMiddleware = Middleware<HttpState, HttpSettings>
/** A route's handler: the context also carries the router's `params`. */
export type HttpRoute = RouterMiddleware<HttpState, HttpSettings>

/** The one place an answer is put on the wire. */
export const sendAnswer = (ctx: HttpContext, answer: HttpAnswer): void => {
  ctx.status = answer.status
  for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value)
  ctx.body = answer.body
  ctx.state.reasonCode = answer.reasonCode
}

/** A failure, answered in the endpoint's shape. */
export const sendFailure = (ctx: HttpContext, endpoint: Endpoint, failure: FailureCase): void =>
  sendAnswer(ctx, failureAnswer(failure, endpoint, ctx))

/** A report, with its route's body. */
export const sendReport = (ctx: HttpContext, report: ReportCase, body: HttpAnswer['body']): void =>
  sendAnswer(ctx, reportAnswer(report, body))
