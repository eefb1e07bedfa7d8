import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import {
  Base58Address,
  BASE58_SIGNATURE,
  makeAddressCodec,
  MessageDigest,
  Nonce,
  type Settlement,
} from '@x402-facilitator/domain'
import { failureAnswer } from '../answers/http-answer.js'
import { receiptOfSettlement } from '../answers/settlement-receipts.js'
import type { AuthorizationLookup, HttpDeps } from '../http-deps.js'
import { sendAnswer, sendFailure, sendReport, type HttpContext, type HttpRoute } from '../http-context.js'
import { servedNetworkNamed } from '../served-networks.js'

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
  confirmations: s.blockNumber === undefined ? null : (confirmationsOf(s.network, s.blockNumber) ?? null),
  attempts: s.attempts.map((a) => a.txHash),
  ...(s.error ? { error: s.error } : {}),
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
})

/** The view, with the row's signed receipt when it names a payment on the chain (docs/ARCHITECTURE.md §4). */
const viewWithReceipt = (deps: HttpDeps, row: Settlement) => {
  const receipt = receiptOfSettlement(deps, row)
  return { ...settlementView(row, deps.confirmationsOf), ...(receipt === undefined ? {} : { receipt }) }
}

/**
 * With API keys, a key reads the settlements it asked for (the row's latest caller) and those paying a payee it is
 * scoped to; another key's are answered as not found (their existence is not told). Without keys, every one is open.
 */
const visibleTo = (ctx: HttpContext, row: Settlement): boolean => {
  const { apiKeyId, uptoPayees } = ctx.state
  if (apiKeyId === undefined) return true
  return row.caller === apiKeyId || (uptoPayees ?? []).includes(row.payee)
}

const lookUpByHash = async (ctx: HttpContext, deps: HttpDeps, txHash: string) => {
  const found = await deps.lookUpSettlement({ _tag: 'ByTxHash', txHash })()
  if (E.isLeft(found)) return sendFailure(ctx, 'other', { _tag: 'LookupUnavailable', failure: found.left })
  if (O.isNone(found.right) || !visibleTo(ctx, found.right.value))
    return sendFailure(ctx, 'other', { _tag: 'SettlementNotFound' })
  const row = found.right.value
  // A settler batch's hash is every one of its payments' (docs/ARCHITECTURE.md §5.7): no single settlement to answer.
  if (row.attempts.some((a) => a.txHash === txHash && a.batchIndex !== undefined)) {
    return sendFailure(ctx, 'other', { _tag: 'BatchTransaction', txHash })
  }
  sendReport(ctx, { _tag: 'SettlementFound' }, viewWithReceipt(deps, row))
}

/** One authorization settled on several networks (or tokens): 409 with every match, for the caller to choose. */
const lookUpByAuthorization = async (ctx: HttpContext, deps: HttpDeps, query: AuthorizationLookup) => {
  const found = await deps.lookUpSettlementsByAuthorization(query)()
  if (E.isLeft(found)) return sendFailure(ctx, 'other', { _tag: 'LookupUnavailable', failure: found.left })
  const visible = found.right.filter((row) => visibleTo(ctx, row))
  const [row, ...others] = visible
  if (row === undefined) return sendFailure(ctx, 'other', { _tag: 'SettlementNotFound' })
  if (others.length === 0) return sendReport(ctx, { _tag: 'SettlementFound' }, viewWithReceipt(deps, row))
  const matches = visible.map(({ network, asset }) => ({ network, asset }))
  const answer = failureAnswer({ _tag: 'AmbiguousSettlement', matches }, 'other', ctx)
  const views = visible.map((match) => viewWithReceipt(deps, match))
  sendAnswer(ctx, { ...answer, body: { ...(answer.body as object), matches: views } })
}

/** `GET /settlements/{txHash}`: by any attempt's transaction hash. */
export const settlementByHashRoute =
  (deps: HttpDeps): HttpRoute =>
  async (ctx) => {
    const txHash = String(ctx.params.txHash)
    // An EVM hash (the journal keeps it lower case), or a Solana transaction's signature (base58, its case its value).
    if (TX_HASH.test(txHash)) return lookUpByHash(ctx, deps, `0x${txHash.slice(2).toLowerCase()}`)
    if (BASE58_SIGNATURE.test(txHash)) return lookUpByHash(ctx, deps, txHash)
    return sendFailure(ctx, 'other', { _tag: 'InvalidQuery', field: 'txHash' })
  }

/**
 * `GET /settlements?payer=…&nonce=…[&network=…]`: by the authorization, on the network named (its spec name or CAIP-2
 * id) or, unnamed, on every one served; a network not served is named back with those that are.
 */
export const settlementByAuthorizationRoute = (deps: HttpDeps): HttpRoute => {
  // An EVM authorization (its payer and nonce), or a Solana payment (its payer and its message's digest).
  const Query = t.union([
    t.type({ payer: makeAddressCodec(deps.addressChecksum), nonce: Nonce }),
    t.type({ payer: Base58Address, nonce: MessageDigest }),
  ])
  const served = [...new Set(deps.networks.flatMap(({ name, caip2 }) => [name, caip2]))]
  return async (ctx) => {
    const query = Query.decode({ payer: ctx.query.payer, nonce: ctx.query.nonce })
    if (E.isLeft(query)) {
      return sendFailure(ctx, 'other', { _tag: 'InvalidQuery', field: query.left[0]?.context[1]?.key ?? 'query' })
    }
    const named = ctx.query.network
    const network = typeof named === 'string' ? servedNetworkNamed(deps.networks, named) : undefined
    if (named !== undefined && network === undefined) {
      const expected = `a network this facilitator serves: ${served.join(' or ')}`
      return sendFailure(ctx, 'other', { _tag: 'InvalidQuery', field: 'network', expected })
    }
    await lookUpByAuthorization(ctx, deps, { ...query.right, ...(network ? { network: network.name } : {}) })
  }
}
