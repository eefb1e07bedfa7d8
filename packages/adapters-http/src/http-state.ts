import type { RouterMiddleware } from '@koa/router'
import type { Middleware, ParameterizedContext } from 'koa'

/** What the middlewares leave on `ctx.state` for those after them. */
export interface HttpState {
  /** Set first, by `request-id.ts`: every answer and log line carries it. */
  requestId: string
  /** Why the answer is what it is, for the access log and metrics; unset on success. */
  reasonCode?: string
  /** A short id of the caller's API key when keys are configured (`operations/api-keys.ts`); never the key. */
  apiKeyId?: string
}

/** Configuration every answer may need, set once on `app.context` (docs/ARCHITECTURE.md §6): every `ctx` inherits it. */
export interface HttpSettings {
  /** Seconds a 503 `service_unavailable` asks the client to wait. */
  readonly retryAfterSeconds: number
}

export type HttpContext = ParameterizedContext<HttpState, HttpSettings>
export type HttpMiddleware = Middleware<HttpState, HttpSettings>
/** A route's handler: the context also carries the router's `params`. */
export type HttpRoute = RouterMiddleware<HttpState, HttpSettings>
