import { randomUUID } from 'node:crypto'
import type { HttpMiddleware } from './http-state.js'

export const REQUEST_ID_HEADER = 'X-Request-Id'
const SANE_ID = /^[\w.:-]{1,128}$/

const isPlainObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null && !Array.isArray(body) && !Buffer.isBuffer(body)

/** Keeps a caller's request id when it is sane, else makes one; every answer carries it, error bodies too. */
export const requestId = (): HttpMiddleware => async (ctx, next) => {
  const incoming = ctx.get(REQUEST_ID_HEADER)
  const id = SANE_ID.test(incoming) ? incoming : randomUUID()
  ctx.state.requestId = id
  ctx.set(REQUEST_ID_HEADER, id)
  await next()
  if (ctx.status >= 400 && isPlainObject(ctx.body) && !('requestId' in ctx.body)) ctx.body = { ...ctx.body, requestId: id }
}
