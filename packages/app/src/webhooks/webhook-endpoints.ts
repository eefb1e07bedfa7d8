import * as E from 'fp-ts/lib/Either.js'
import type { FanOutEndpoint } from '@x402-facilitator/domain'
import * as t from 'io-ts'

/** Every event kind (docs/ARCHITECTURE.md §5.9), as the migration's trigger derives them from a transition. */
export const EVENT_KINDS = [
  'pending',
  'confirmed',
  'final',
  'reorged',
  'settled_again',
  'settled_elsewhere',
  'reverted',
  'released',
  'cancelled',
  'unsettleable',
  'waived',
] as const

export interface WebhookEndpoint {
  /** Its URL: the id its deliveries are kept under. */
  readonly url: string
  /** The first signs; each of the others too, during a rotation (one `v1` each). Never logged. */
  readonly secrets: ReadonlyArray<string>
  /** The kinds it is sent; empty: every kind. */
  readonly events: ReadonlyArray<string>
  /** The payees whose payments it is told of (lower case); empty: every payee's. */
  readonly payees: ReadonlyArray<string>
  /** The networks (spec name or CAIP-2 id) whose payments it is told of; empty: every network's. */
  readonly networks: ReadonlyArray<string>
}

/** What fan-out is told of an endpoint (its secrets stay here): its id, its scope, and how many it may lease. */
export const fanOutTarget = (endpoint: WebhookEndpoint, room: number): FanOutEndpoint => ({
  id: endpoint.url,
  events: endpoint.events,
  payees: endpoint.payees,
  networks: endpoint.networks,
  room,
})

const isHttpUrl = (s: string): boolean => {
  try {
    const { protocol } = new URL(s)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

const HttpUrl = t.refinement(t.string, isHttpUrl, 'an http(s) URL')
const Secret = t.refinement(t.string, (s) => s.length >= 16, 'a secret of at least 16 characters')
const Kind = t.keyof(Object.fromEntries(EVENT_KINDS.map((kind) => [kind, null])) as Record<string, null>)
const Payee = t.refinement(t.string, (s) => /^0x[0-9a-fA-F]{40}$/.test(s), 'a 0x-prefixed 20-byte hex address')
const EndpointCodec = t.intersection([
  t.type({ url: HttpUrl, secrets: t.array(Secret) }),
  t.partial({ events: t.array(Kind), payees: t.array(Payee), networks: t.array(t.string) }),
])

/** The config file's `webhooks` (a JSON array of `{ url, secrets, events? }`); its first mistake in one line. */
export const webhookEndpoints = fromJson()

function fromJson() {
  return new t.Type<ReadonlyArray<WebhookEndpoint>, string, unknown>(
    'a JSON array of { url, secrets: [≥ 1 secret of ≥ 16 characters], events?: [kinds], payees?: [addresses], ' +
      'networks?: [names] } with distinct URLs',
    (u): u is ReadonlyArray<WebhookEndpoint> => Array.isArray(u),
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c)
      let parsed: unknown
      try {
        parsed = JSON.parse(u)
      } catch {
        return t.failure(u, c)
      }
      const decoded = t.array(EndpointCodec).decode(parsed)
      if (E.isLeft(decoded)) return t.failure(u, c)
      const endpoints = decoded.right.map(({ url, secrets, events = [], payees = [], networks = [] }) => ({
        url,
        secrets,
        events,
        payees: payees.map((payee) => payee.toLowerCase()),
        networks,
      }))
      const distinct = new Set(endpoints.map(({ url }) => url)).size === endpoints.length
      return distinct && endpoints.every(({ secrets }) => secrets.length > 0) ? t.success(endpoints) : t.failure(u, c)
    },
    (endpoints) => JSON.stringify(endpoints),
  )
}
