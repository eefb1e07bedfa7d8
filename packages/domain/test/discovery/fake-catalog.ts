import * as TE from 'fp-ts/lib/TaskEither.js'
import type { CatalogEntry, DiscoveryCatalog, DiscoveryQuery } from '@x402-facilitator/domain'

// Postgres orders the same way with COLLATE "C".
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const keyOf = ({ resource, operation, payTo }: { resource: string; operation: string; payTo: string }) =>
  `${operation} ${resource} ${payTo}`

/** Whether every word of the query is a word of the entry's description or resource (Postgres matches words too). */
const matchesText = (entry: CatalogEntry, text: string) => {
  const words = new Set(`${entry.description ?? ''} ${entry.resource}`.toLowerCase().split(/[^a-z0-9]+/))
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
    .every((word) => words.has(word))
}

const matches = (entry: CatalogEntry, q: DiscoveryQuery) =>
  (q.type === undefined || entry.type === q.type) &&
  (q.payTo === undefined || entry.payTo === q.payTo) &&
  (q.network === undefined || entry.network === q.network) &&
  (q.asset === undefined || entry.asset === q.asset) &&
  (q.scheme === undefined || entry.scheme === q.scheme) &&
  (q.text === undefined || matchesText(entry, q.text))

/** The catalog in memory, as the Postgres one behaves (the discovery contract holds both to it). */
export const makeFakeCatalog = (): DiscoveryCatalog => {
  const entries = new Map<string, { entry: CatalogEntry; hidden: boolean }>()
  const paidSinceOf = (paidSince: Date) => (entry: CatalogEntry) => entry.lastSettledAt >= paidSince
  return {
    record: (entry, { maxPerPayee, paidSince }) => {
      for (const [key, { entry: known, hidden }] of entries)
        if (!hidden && !paidSinceOf(paidSince)(known)) entries.delete(key)
      const key = keyOf(entry)
      const known = entries.get(key)
      const others = [...entries.values()].filter(
        ({ entry: e }) => e.payTo === entry.payTo && keyOf(e) !== key && paidSinceOf(paidSince)(e),
      )
      if (known === undefined && others.length >= maxPerPayee) return TE.right('payee_full')
      const hiddenBefore = [...entries.values()].some(
        ({ entry: e, hidden }) => hidden && e.resource === entry.resource && e.operation === entry.operation,
      )
      entries.set(key, { entry, hidden: known?.hidden ?? hiddenBefore })
      return TE.right('recorded')
    },
    list: (query, paidSince) => {
      const listed = [...entries.values()]
        .filter(({ entry, hidden }) => !hidden && paidSinceOf(paidSince)(entry) && matches(entry, query))
        .map(({ entry }) => entry)
        .sort(
          (a, b) =>
            b.lastSettledAt.getTime() - a.lastSettledAt.getTime() ||
            byCodePoint(a.resource, b.resource) ||
            byCodePoint(a.operation, b.operation) ||
            byCodePoint(a.payTo, b.payTo),
        )
      return TE.right({ entries: listed.slice(query.offset, query.offset + query.limit), total: listed.length })
    },
    hide: ({ resource, operation, payTo }, hidden) => {
      let count = 0
      for (const [key, value] of entries)
        if (
          value.entry.resource === resource &&
          (operation === undefined || value.entry.operation === operation) &&
          (payTo === undefined || value.entry.payTo === payTo)
        ) {
          entries.set(key, { ...value, hidden })
          count++
        }
      return TE.right(count)
    },
  }
}
