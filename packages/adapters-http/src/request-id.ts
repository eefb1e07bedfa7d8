import { randomUUID } from 'node:crypto'
import type { Middleware } from 'koa'

export const REQUEST_ID_HEADER = 'X-Request-Id'
const SANE_ID = /^[\w.:-]{1,128}$/

/** Keeps a caller's request id when it is sane, else makes one; every answer carries it. */
export const requestId = (): Middleware => async (ctx, next) => {
  const incoming = ctx.get(REQUEST_ID_HEADER)
  ctx.state.requestId = SANE_ID.test(incoming) ? incoming : randomUUID()
  ctx.set(REQUEST_ID_HEADER, ctx.state.requestId as string)
  await next()
}
