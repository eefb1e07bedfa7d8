import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import { makeAddressCodec, Nonce, type Settlement, type SettlementQuery } from '@x402-facilitator/domain'
import type { Context, Middleware } from 'koa'
import type { HttpDeps } from '../http-deps.js'

const TX_HASH = /^0x[0-9a-fA-F]{64}$/

/** The journal's view of one settlement, as callers see it. */
export const settlementView = (s: Settlement) => ({
  state: s.state,
  payer: s.payer,
  payee: s.payee,
  value: s.value.toString(),
  asset: s.asset,
  network: s.network,
  nonce: s.nonce,
  txHash: s.txHash ?? null,
  blockNumber: s.blockNumber === undefined ? null : Number(s.blockNumber),
  attempts: s.attempts.map((a) => a.txHash),
  ...(s.error ? { error: s.error } : {}),
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
})

const reply = (ctx: Context, status: number, body: Record<string, unknown>, retryAfterSeconds: number) => {
  ctx.status = status
  ctx.body = body
  if (typeof body.errorCode === 'string') ctx.state.reasonCode = body.errorCode
  if (status === 503) ctx.set('Retry-After', String(retryAfterSeconds))
}

const answer = async (ctx: Context, deps: HttpDeps, query: SettlementQuery, retryAfterSeconds: number) => {
  const found = await deps.lookUpSettlement(query)()
  if (E.isLeft(found)) {
    return reply(ctx, 503, { error: `service unavailable: the settlement journal did not answer (${found.left.reason})`, errorCode: 'service_unavailable' }, retryAfterSeconds)
  }
  if (O.isNone(found.right)) return reply(ctx, 404, { error: 'no settlement is known for this query', errorCode: 'settlement_not_found' }, retryAfterSeconds)
  reply(ctx, 200, settlementView(found.right.value), retryAfterSeconds)
}

/** `GET /settlements/{txHash}`: by any attempt's transaction hash. */
export const settlementByHashRoute =
  (deps: HttpDeps, retryAfterSeconds: number): Middleware =>
  async (ctx) => {
    const txHash = String(ctx.params.txHash)
    if (!TX_HASH.test(txHash)) return reply(ctx, 400, { error: 'txHash: expected 0x + 64 hex digits', errorCode: 'invalid_query' }, retryAfterSeconds)
    await answer(ctx, deps, { _tag: 'ByTxHash', txHash: txHash.toLowerCase() as `0x${string}` }, retryAfterSeconds)
  }

/** `GET /settlements?payer=…&nonce=…`: by the authorization. */
export const settlementByAuthorizationRoute = (deps: HttpDeps, retryAfterSeconds: number): Middleware => {
  const Query = t.type({ payer: makeAddressCodec(deps.addressChecksum), nonce: Nonce })
  return async (ctx) => {
    const query = Query.decode({ payer: ctx.query.payer, nonce: ctx.query.nonce })
    if (E.isLeft(query)) {
      const bad = query.left[0]?.context[1]?.key ?? 'query'
      return reply(ctx, 400, { error: `${bad}: expected ${bad === 'payer' ? 'a 0x-prefixed 20-byte address' : 'a nonce (0x + 64 hex, or a decimal integer)'}`, errorCode: 'invalid_query' }, retryAfterSeconds)
    }
    await answer(ctx, deps, { _tag: 'ByAuthorization', ...query.right }, retryAfterSeconds)
  }
}
