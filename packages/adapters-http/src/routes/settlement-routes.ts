import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import { makeAddressCodec, Nonce, type Settlement, type SettlementQuery } from '@x402-facilitator/domain'
import type { HttpDeps } from '../http-deps.js'
import { sendFailure, sendReport, type HttpContext, type HttpRoute } from '../http-context.js'

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

const lookUp = async (ctx: HttpContext, deps: HttpDeps, query: SettlementQuery) => {
  const found = await deps.lookUpSettlement(query)()
  if (E.isLeft(found)) return sendFailure(ctx, 'other', { _tag: 'LookupUnavailable', failure: found.left })
  if (O.isNone(found.right)) return sendFailure(ctx, 'other', { _tag: 'SettlementNotFound' })
  const row = found.right.value
  // A settler batch's hash is every one of its payments' (docs/ARCHITECTURE.md §5.7): no single settlement to answer.
  if (query._tag === 'ByTxHash' && row.attempts.some((a) => a.txHash === query.txHash && a.batchIndex !== undefined)) {
    return sendFailure(ctx, 'other', { _tag: 'BatchTransaction', txHash: query.txHash })
  }
  sendReport(ctx, { _tag: 'SettlementFound' }, settlementView(row, deps.confirmationsOf))
}

/** `GET /settlements/{txHash}`: by any attempt's transaction hash. */
export const settlementByHashRoute =
  (deps: HttpDeps): HttpRoute =>
  async (ctx) => {
    const txHash = String(ctx.params.txHash)
    if (!TX_HASH.test(txHash)) return sendFailure(ctx, 'other', { _tag: 'InvalidQuery', field: 'txHash' })
    // The pattern checked the `0x`; the journal keeps hashes in lower case.
    await lookUp(ctx, deps, { _tag: 'ByTxHash', txHash: `0x${txHash.slice(2).toLowerCase()}` })
  }

/**
 * `GET /settlements?payer=…&nonce=…[&network=…]`: by the authorization, on the network named (its spec name or CAIP-2
 * id) or, unnamed, on the one served; a network not served is named back with those that are.
 */
export const settlementByAuthorizationRoute = (deps: HttpDeps): HttpRoute => {
  const Query = t.type({ payer: makeAddressCodec(deps.addressChecksum), nonce: Nonce })
  const served = [...new Set([deps.policy.network, deps.caip2Network])]
  return async (ctx) => {
    const query = Query.decode({ payer: ctx.query.payer, nonce: ctx.query.nonce })
    if (E.isLeft(query)) {
      return sendFailure(ctx, 'other', { _tag: 'InvalidQuery', field: query.left[0]?.context[1]?.key ?? 'query' })
    }
    const { network } = ctx.query
    if (network !== undefined && (typeof network !== 'string' || !served.includes(network))) {
      const expected = `a network this facilitator serves: ${served.join(' or ')}`
      return sendFailure(ctx, 'other', { _tag: 'InvalidQuery', field: 'network', expected })
    }
    await lookUp(ctx, deps, { _tag: 'ByAuthorization', ...query.right })
  }
}
