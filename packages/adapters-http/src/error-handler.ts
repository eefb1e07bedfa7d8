import type { Middleware } from 'koa'
import type { Logger } from 'pino'
import { endpointOf, failureBody } from './endpoint.js'

interface HttpishError {
  status?: number
  type?: string
  message?: string
}

/** Errors the body parser raises for what a client sent: answered 4xx in the endpoint's shape. */
const clientError = (err: HttpishError, limitBytes: number): { status: number; code: string; message: string } | undefined => {
  if (err.status === 413 || err.type === 'entity.too.large') {
    return { status: 413, code: 'payload_too_large', message: `body: larger than the limit of ${limitBytes} bytes` }
  }
  // The JSON body parser's only 400 is a parse failure.
  if (err.status === 400) {
    return { status: 400, code: 'invalid_payload', message: `body: not valid JSON (${err.message ?? 'parse error'})` }
  }
  if (err.status === 415) {
    return { status: 415, code: 'unsupported_media_type', message: `body: ${err.message ?? 'unsupported encoding'}` }
  }
  return undefined
}

/**
 * The one place an exception becomes an answer. Client errors keep their 4xx; anything else is logged with
 * the request id and answered `unexpected_verify_error` / `unexpected_settle_error`; the process lives on.
 */
export const errorHandler =
  (logger: Logger, limitBytes: number): Middleware =>
  async (ctx, next) => {
    try {
      await next()
    } catch (caught) {
      const endpoint = endpointOf(ctx.path)
      const known = clientError(caught as HttpishError, limitBytes)
      if (known) {
        ctx.status = known.status
        ctx.body = failureBody(endpoint, known.code, known.message)
        ctx.state.reasonCode = known.code
        return
      }
      logger.error({ reqId: ctx.state.requestId, err: caught, path: ctx.path }, 'unexpected error')
      const code = endpoint === 'other' ? 'unexpected_error' : `unexpected_${endpoint}_error`
      ctx.status = 500
      ctx.body = failureBody(endpoint, code, `unexpected error; quote request id ${ctx.state.requestId as string}`)
      ctx.state.reasonCode = code
    }
  }
