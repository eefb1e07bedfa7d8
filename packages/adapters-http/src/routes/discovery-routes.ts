import * as E from 'fp-ts/lib/Either.js'
import type { DiscoveryQuery, JournalUnavailable } from '@x402-facilitator/domain'
import { discoveryResourceOf } from '../discovery/discovery-view.js'
import type { HttpContext, HttpMiddleware } from '../http-context.js'
import type { DiscoveryHttpDeps, HttpDeps } from '../http-deps.js'
import { servedNetworkNamed } from '../served-networks.js'

const DEFAULT_LIMIT = 20
const MAX_LIMIT = 100
/** Deep pages cost Postgres a scan of every row before them; a client narrows with filters instead. */
const MAX_OFFSET = 10_000
const FILTERS = ['type', 'payTo', 'scheme', 'network', 'asset', 'extensions'] as const
const MAX_FILTER_CHARS = 128
const MAX_QUERY_CHARS = 200

type Refusal = { readonly refused: string }

const refuse = (ctx: HttpContext, status: number, errorCode: string, error: string) => {
  ctx.status = status
  ctx.body = { error, errorCode }
}

const unavailable = (ctx: HttpContext, { reason }: JournalUnavailable) => {
  ctx.set('Retry-After', '2')
  refuse(ctx, 503, 'service_unavailable', `service unavailable: the discovery catalog did not answer (${reason})`)
}

const wholeNumber = (name: string, text: string | undefined, fallback: number, min: number, max: number) => {
  if (text === undefined) return fallback
  const value = /^[0-9]{1,6}$/.test(text) ? Number(text) : NaN
  return value >= min && value <= max ? value : { refused: `${name} must be a whole number from ${min} to ${max}` }
}

/** An EVM address is one address in any case; a base58 one's case is part of it. */
const spelled = (address: string) => (/^0x/i.test(address) ? address.toLowerCase() : address)

/** The query of a listing or a search, or the first mistake in it. */
const discoveryQuery = (
  deps: HttpDeps,
  query: Record<string, unknown>,
  search: boolean,
): DiscoveryQuery | Refusal | 'none' => {
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') return { refused: `${name} must be given once` }
    if (value.includes('\u0000')) return { refused: `${name}: must not contain the NUL character (\\u0000)` }
  }
  const one = (name: string) => query[name] as string | undefined
  for (const name of FILTERS)
    if ((one(name)?.length ?? 0) > MAX_FILTER_CHARS)
      return { refused: `${name}: at most ${MAX_FILTER_CHARS} characters` }
  const limit = wholeNumber('limit', one('limit'), DEFAULT_LIMIT, 1, MAX_LIMIT)
  const offset = wholeNumber(search ? 'cursor' : 'offset', one(search ? 'cursor' : 'offset'), 0, 0, MAX_OFFSET)
  if (typeof limit !== 'number') return limit
  if (typeof offset !== 'number') return offset
  const text = one('query')?.trim()
  if (search && (text === undefined || text === '' || text.length > MAX_QUERY_CHARS))
    return { refused: `query: the words to search for, 1 to ${MAX_QUERY_CHARS} characters` }
  // Every entry carries the bazaar extension: asking for another finds none.
  const extensions = one('extensions')
  if (extensions !== undefined && extensions !== 'bazaar') return 'none'
  const network = one('network')
  const filters = {
    type: one('type'),
    payTo: one('payTo') === undefined ? undefined : spelled(one('payTo')!),
    scheme: one('scheme'),
    network: network === undefined ? undefined : (servedNetworkNamed(deps.networks, network)?.caip2 ?? network),
    asset: one('asset') === undefined ? undefined : spelled(one('asset')!),
    text: search ? text : undefined,
  }
  return {
    limit,
    offset,
    ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)),
  }
}

/** Reads a page for a listing or a search: 404 when discovery is off, 400 naming a bad parameter, 503 unanswered. */
const readPage = async (ctx: HttpContext, deps: HttpDeps, search: boolean) => {
  const discovery: DiscoveryHttpDeps | undefined = deps.discovery
  if (discovery === undefined) {
    refuse(ctx, 404, 'discovery_off', 'discovery is not served here (DISCOVERY=off)')
    return undefined
  }
  const query = discoveryQuery(deps, ctx.query, search)
  if (typeof query === 'object' && 'refused' in query) {
    refuse(ctx, 400, 'invalid_query', query.refused)
    return undefined
  }
  if (query === 'none') return { query: undefined, entries: [], total: 0 }
  const page = await discovery.listResources(query)()
  if (E.isLeft(page)) {
    unavailable(ctx, page.left)
    return undefined
  }
  ctx.set('Cache-Control', 'public, max-age=30')
  return { query, ...page.right }
}

/**
 * `GET /api/facilitator/discovery/resources` (@x402/extensions 2.27 `listResources`): the catalog, newest payment
 * first; filters `type`, `payTo`, `scheme`, `network` (CAIP-2 or its served name), `asset`, `extensions`; `limit`
 * (1–100, 20) and `offset` (0–10,000).
 */
export const discoveryListRoute =
  (deps: HttpDeps): HttpMiddleware =>
  async (ctx) => {
    const page = await readPage(ctx, deps, false)
    if (page === undefined) return
    ctx.body = {
      x402Version: 2,
      items: page.entries.map(discoveryResourceOf),
      pagination: { limit: page.query?.limit ?? DEFAULT_LIMIT, offset: page.query?.offset ?? 0, total: page.total },
    }
  }

/**
 * `GET /api/facilitator/discovery/search?query=…` (@x402/extensions 2.27 `search`): Postgres full-text search of the
 * descriptions and resource URLs, with the listing's filters; `cursor` (the next offset) pages on.
 */
export const discoverySearchRoute =
  (deps: HttpDeps): HttpMiddleware =>
  async (ctx) => {
    const page = await readPage(ctx, deps, true)
    if (page === undefined) return
    const limit = page.query?.limit ?? DEFAULT_LIMIT
    const next = (page.query?.offset ?? 0) + page.entries.length
    const more = next < page.total && next <= MAX_OFFSET
    ctx.body = {
      x402Version: 2,
      resources: page.entries.map(discoveryResourceOf),
      partialResults: next < page.total,
      pagination: { limit, cursor: more ? String(next) : null },
    }
  }

/**
 * `POST /api/facilitator/operator/discovery/hide` `{ resource, operation?, payTo?, hidden? }` (behind the operator's
 * token): hides every entry of the resource (or of one method or tool, or one payee's), or shows them again with
 * `hidden: false`.
 */
export const hideResourceRoute =
  (deps: HttpDeps): HttpMiddleware =>
  async (ctx) => {
    const discovery = deps.discovery
    if (discovery === undefined)
      return refuse(ctx, 404, 'discovery_off', 'discovery is not served here (DISCOVERY=off)')
    const body: unknown = ctx.request.body
    const {
      resource,
      operation,
      payTo,
      hidden = true,
    } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
    if (typeof resource !== 'string' || resource === '' || resource.length > 2048)
      return refuse(ctx, 400, 'invalid_payload', 'resource: the URL of the resource, as discovery lists it')
    if (operation !== undefined && (typeof operation !== 'string' || operation.length > 128))
      return refuse(ctx, 400, 'invalid_payload', 'operation: a method or tool, as discovery lists it')
    if (payTo !== undefined && (typeof payTo !== 'string' || payTo.length > 128))
      return refuse(ctx, 400, 'invalid_payload', 'payTo: one payee, as discovery lists it')
    if (typeof hidden !== 'boolean') return refuse(ctx, 400, 'invalid_payload', 'hidden: true or false')
    const key = {
      resource,
      ...(operation === undefined ? {} : { operation }),
      ...(payTo === undefined ? {} : { payTo: spelled(payTo) }),
    }
    const entries = await discovery.hideResource(key, hidden)()
    if (E.isLeft(entries)) return unavailable(ctx, entries.left)
    ctx.body = { ...key, hidden, entries: entries.right }
  }
