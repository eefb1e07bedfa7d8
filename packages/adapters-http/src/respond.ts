import type { HttpContext } from './http-state.js'

/** One answer: its status, body and headers, and the reason code the access log and metrics record. */
export interface Answer {
  readonly status: number
  /** JSON, or text whose `Content-Type` the headers give (`/metrics`). */
  readonly body: Readonly<Record<string, unknown>> | string
  readonly reasonCode?: string
  /** This answer's own headers: `Allow`, `WWW-Authenticate`, `Cache-Control`, a rate limit's `Retry-After`. */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * The one place an answer is made. A `service_unavailable` answer (nothing happened: docs/ARCHITECTURE.md §4) says
 * when to retry, from the one configured delay; the readiness probe's 503 (`not_ready`) is for orchestrators and
 * does not.
 */
export const respond = (ctx: HttpContext, answer: Answer): void => {
  ctx.status = answer.status
  for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value)
  ctx.body = answer.body
  ctx.state.reasonCode = answer.reasonCode
  if (answer.reasonCode === 'service_unavailable') ctx.set('Retry-After', String(ctx.retryAfterSeconds))
}
