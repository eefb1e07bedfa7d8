import { createHash, timingSafeEqual } from 'node:crypto'
import type { Address } from '@x402-facilitator/domain'
import { endpointOf } from '../answers/http-answer.js'
import { sendFailure, type HttpMiddleware } from '../http-context.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * `Authorization: Bearer <key>` on the routes that spend or reveal (verify, settle, lookups). Keys are compared as
 * SHA-256 digests with `timingSafeEqual`, so neither their content nor their length leaks through timing; the
 * request carries a short id of the key (for rate limits and idempotency scopes), never the key.
 */
export const requireApiKey = (
  keys: ReadonlyArray<string>,
  uptoPayees: ReadonlyMap<string, ReadonlyArray<Address>> = new Map(),
): HttpMiddleware => {
  const known = keys.map((key) => ({
    digest: digest(key),
    id: digest(`id:${key}`).subarray(0, 6).toString('hex'),
    uptoPayees: uptoPayees.get(key) ?? [],
  }))
  return async (ctx, next) => {
    const presented = /^Bearer (.+)$/i.exec(ctx.get('Authorization'))?.[1]?.trim()
    const match = presented === undefined ? undefined : known.find((k) => timingSafeEqual(k.digest, digest(presented)))
    if (match === undefined) return sendFailure(ctx, endpointOf(ctx.path), { _tag: 'Unauthorized' })
    ctx.state.apiKeyId = match.id
    ctx.state.uptoPayees = match.uptoPayees
    await next()
  }
}
