import type { Logger } from 'pino'
import type { FailureCase } from './answers/answer-cases.js'
import { endpointOf } from './answers/http-answer.js'
import { sendFailure, type HttpMiddleware } from './http-context.js'

/** What an error of the body parser (http-errors) carries; anything may be thrown, so each field is checked. */
interface HttpishError {
  readonly status?: unknown
  readonly type?: unknown
  readonly message?: unknown
}

const httpish = (caught: unknown): HttpishError => (typeof caught === 'object' && caught !== null ? caught : {})

/** Errors the body parser raises for what a client sent: answered 4xx in the endpoint's shape. */
const clientError = ({ status, type, message }: HttpishError, limitBytes: number): FailureCase | undefined => {
  if (status === 413 || type === 'entity.too.large') return { _tag: 'PayloadTooLarge', limitBytes }
  // The JSON body parser's only 400 is a parse failure.
  if (status === 400) return { _tag: 'InvalidJson', detail: message }
  if (status === 415) return { _tag: 'UnsupportedEncoding', detail: message }
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
      const known = clientError(httpish(caught), limitBytes)
      if (known) return sendFailure(ctx, endpoint, known)
      logger.error({ reqId: ctx.state.requestId, err: caught, path: ctx.path }, 'unexpected error')
      sendFailure(ctx, endpoint, { _tag: 'UnexpectedError', endpoint, requestId: ctx.state.requestId })
    }
  }
