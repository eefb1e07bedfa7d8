import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import { makeAddressCodec, Nonce, type Settlement, type SettlementQuery } from '@x402-facilitator/domain'
import { failure } from '../endpoint.js'
import type { HttpDeps } from '../http-deps.js'
import type { HttpContext, HttpRoute } from '../http-state.js'
import { respond } from '../respond.js'

const TX_HASH = /^0x[0-9a-fA-F]{64}$/

/**
 * The journal's view of one settlement, as callers see it; `confirmations`: blocks on top of its block at the head
 * last seen (docs/ARCHITECTURE.md §5.6), null when it has no block or the head is not known.
 */
export const settlementView = (s: Settlement, confirmationsOf: HttpDeps['confirmationsOf'] = () => undefined) => ({
  state: s.state,
  payer: s.payer,
  payee: s.payee,
  value: s.value.toString(),
  asset: s.asset,
  network: s.network,
  nonce: s.nonce,
  txHash: s.txHash ?? null,
  blockNumber: s.blockNumber === undefined ? null : Number(s.blockNumber),
  confirmations: s.blockNumber === undefined ? null : (confirmationsOf(s.blockNumber) ?? null),
  attempts: s.attempts.map((a) => a.txHash),
  ...(s.error ? { error: s.error } : {}),
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
})

const invalidQuery = (message: string) => failure('other', 400, 'invalid_query', message)

const answer = async (ctx: HttpContext, deps: HttpDeps, query: SettlementQuery) => {
  const found = await deps.lookUpSettlement(query)()
  if (E.isLeft(found)) {
    const message = `service unavailable: the settlement journal did not answer (${found.left.reason})`
    return respond(ctx, failure('other', 503, 'service_unavailable', message))
  }
  if (O.isNone(found.right)) return respond(ctx, failure('other', 404, 'settlement_not_found', 'no settlement is known for this query'))
  const row = found.right.value
  // A settler batch's hash is every one of its payments' (docs/ARCHITECTURE.md §5.7): no single settlement to answer.
  if (query._tag === 'ByTxHash' && row.attempts.some((a) => a.txHash === query.txHash && a.batchIndex !== undefined)) {
    const message = `transaction ${query.txHash} settles several payments (a settler batch): look one up by payer and nonce`
    return respond(ctx, failure('other', 409, 'batch_transaction', message))
  }
  respond(ctx, { status: 200, body: settlementView(row, deps.confirmationsOf) })
}

/** `GET /settlements/{txHash}`: by any attempt's transaction hash. */
export const settlementByHashRoute =
  (deps: HttpDeps): HttpRoute =>
  async (ctx) => {
    const txHash = String(ctx.params.txHash)
    if (!TX_HASH.test(txHash)) return respond(ctx, invalidQuery('txHash: expected 0x + 64 hex digits'))
    // The pattern checked the `0x`; the journal keeps hashes in lower case.
    await answer(ctx, deps, { _tag: 'ByTxHash', txHash: `0x${txHash.slice(2).toLowerCase()}` })
  }

/** `GET /settlements?payer=…&nonce=…`: by the authorization. */
export const settlementByAuthorizationRoute = (deps: HttpDeps): HttpRoute => {
  const Query = t.type({ payer: makeAddressCodec(deps.addressChecksum), nonce: Nonce })
  return async (ctx) => {
    const query = Query.decode({ payer: ctx.query.payer, nonce: ctx.query.nonce })
    if (E.isLeft(query)) {
      const bad = query.left[0]?.context[1]?.key ?? 'query'
      return respond(ctx, invalidQuery(`${bad}: expected ${bad === 'payer' ? 'a 0x-prefixed 20-byte address' : 'a nonce (0x + 64 hex, or a decimal integer)'}`))
    }
    await answer(ctx, deps, { _tag: 'ByAuthorization', ...query.right })
  }
}
