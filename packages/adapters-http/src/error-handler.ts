import type { Logger } from 'pino'
import { endpointOf, failure, type Endpoint } from './endpoint.js'
import type { HttpMiddleware } from './http-state.js'
import { respond, type Answer } from './respond.js'

/** What an error of the body parser (http-errors) carries; anything may be thrown, so each field is checked. */
interface HttpishError {
  readonly status?: unknown
  readonly type?: unknown
  readonly message?: unknown
}

const httpish = (caught: unknown): HttpishError => (typeof caught === 'object' && caught !== null ? caught : {})

/** Errors the body parser raises for what a client sent: answered 4xx in the endpoint's shape. */
const clientError = (endpoint: Endpoint, { status, type, message }: HttpishError, limitBytes: number): Answer | undefined => {
  if (status === 413 || type === 'entity.too.large') {
    return failure(endpoint, 413, 'payload_too_large', `body: larger than the limit of ${limitBytes} bytes`)
  }
  // The JSON body parser's only 400 is a parse failure.
  if (status === 400) return failure(endpoint, 400, 'invalid_payload', `body: not valid JSON (${message ?? 'parse error'})`)
  if (status === 415) return failure(endpoint, 415, 'unsupported_media_type', `body: ${message ?? 'unsupported encoding'}`)
  return undefined
}

/**
 * The one place an exception becomes an answer. Client errors keep their 4xx; anything else is logged with
 * the request id and answered `unexpected_verify_error` / `unexpected_settle_error`; the process lives on.
 */
export const errorHandler =
  (logger: Logger, limitBytes: number): HttpMiddleware =>
  async (ctx, next) => {
    try {
      await next()
    } catch (caught) {
      const endpoint = endpointOf(ctx.path)
      const known = clientError(endpoint, httpish(caught), limitBytes)
      if (known) return respond(ctx, known)
      logger.error({ reqId: ctx.state.requestId, err: caught, path: ctx.path }, 'unexpected error')
      const code = endpoint === 'other' ? 'unexpected_error' : `unexpected_${endpoint}_error`
      respond(ctx, failure(endpoint, 500, code, `unexpected error; quote request id ${ctx.state.requestId}`))
    }
  }
