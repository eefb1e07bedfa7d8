import { createHash, timingSafeEqual } from 'node:crypto'
import type { HttpMiddleware } from '../http-context.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * The operator's routes answer only `Authorization: Bearer <OPERATOR_TOKEN>` (compared as SHA-256 digests, in constant
 * time): never a caller's API key.
 */
export const requireOperatorToken = (operatorToken: string): HttpMiddleware => {
  const token = digest(operatorToken)
  return async (ctx, next) => {
    const presented = /^Bearer (.+)$/i.exec(ctx.get('Authorization'))?.[1]?.trim()
    if (presented === undefined || !timingSafeEqual(token, digest(presented))) {
      ctx.set('WWW-Authenticate', 'Bearer')
      ctx.status = 401
      ctx.body = { error: 'the operator token is required: Authorization: Bearer <token>', errorCode: 'unauthorized' }
      return
    }
    await next()
  }
}
