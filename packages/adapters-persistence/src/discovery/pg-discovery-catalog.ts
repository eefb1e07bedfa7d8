import type { Knex } from 'knex'
import type { CatalogEntry, DiscoveryCatalog, DiscoveryQuery } from '@x402-facilitator/domain'
import { defaultJournalTimeoutMs, journalCall } from '../journal/journal-statements.js'

const TABLE = 'discovery_resources'
const PRUNED_PER_WRITE = 100

interface CatalogRow {
  resource: string
  operation: string
  pay_to: string
  type: string
  x402_version: number
  description: string | null
  mime_type: string | null
  service_name: string | null
  tags: string[] | null
  icon_url: string | null
  accepts: Record<string, unknown>
  extensions: Record<string, unknown>
  network: string
  asset: string
  scheme: string
  last_settled_at: Date
}

const rowOf = (entry: CatalogEntry): CatalogRow => ({
  resource: entry.resource,
  operation: entry.operation,
  pay_to: entry.payTo,
  type: entry.type,
  x402_version: entry.x402Version,
  description: entry.description ?? null,
  mime_type: entry.mimeType ?? null,
  service_name: entry.serviceName ?? null,
  tags: entry.tags === undefined ? null : [...entry.tags],
  icon_url: entry.iconUrl ?? null,
  accepts: entry.accepts,
  extensions: entry.extensions,
  network: entry.network,
  asset: entry.asset,
  scheme: entry.scheme,
  last_settled_at: entry.lastSettledAt,
})

const present = <K extends string, V>(key: K, value: V | null): { [P in K]?: V } =>
  (value === null ? {} : { [key]: value }) as { [P in K]?: V }

const entryOf = (row: CatalogRow): CatalogEntry => ({
  resource: row.resource,
  type: row.type,
  operation: row.operation,
  x402Version: row.x402_version,
  ...present('description', row.description),
  ...present('mimeType', row.mime_type),
  ...present('serviceName', row.service_name),
  ...present('tags', row.tags),
  ...present('iconUrl', row.icon_url),
  accepts: row.accepts,
  extensions: row.extensions,
  payTo: row.pay_to,
  network: row.network,
  asset: row.asset,
  scheme: row.scheme,
  lastSettledAt: row.last_settled_at,
})

/** The listed entries a query asks for: shown, paid since the bound, each filter given. */
const matching = (knex: Knex, query: DiscoveryQuery, paidSince: Date) => {
  const filters = {
    type: query.type,
    pay_to: query.payTo,
    network: query.network,
    asset: query.asset,
    scheme: query.scheme,
  }
  const builder = knex(TABLE).where({ hidden: false }).andWhere('last_settled_at', '>=', paidSince)
  for (const [column, value] of Object.entries(filters)) if (value !== undefined) builder.andWhere(column, value)
  if (query.text !== undefined) builder.andWhereRaw(`search @@ websearch_to_tsquery('english', ?)`, [query.text])
  return builder
}

/**
 * The discovery catalog on Postgres (migration 0018). A payee's cap is kept under a transaction-scoped advisory lock
 * of that payee, so concurrent declarations of new resources cannot pass it together.
 */
export const makePgDiscoveryCatalog = (
  knex: Knex,
  timeoutMs = defaultJournalTimeoutMs,
  /** Where listings run: connections of their own in production, so a flood of them never delays a write. */
  listings: Knex = knex,
): DiscoveryCatalog => ({
  record: (entry, { maxPerPayee, paidSince }) =>
    journalCall('discovery record', timeoutMs, () =>
      knex.transaction(async (trx) => {
        await trx.raw(`select pg_advisory_xact_lock(hashtextextended('discovery payee ' || ?, 0))`, [entry.payTo])
        // Each write drops a bounded number of entries no longer paid for (a hidden one stays: it stays hidden).
        await trx.raw(
          `delete from discovery_resources where ctid in (select ctid from discovery_resources
            where last_settled_at < ? and not hidden limit ${PRUNED_PER_WRITE})`,
          [paidSince],
        )
        // A row past the age is a new entry again: it counts against the cap as the others do.
        const known = await trx(TABLE)
          .where({ resource: entry.resource, operation: entry.operation, pay_to: entry.payTo })
          .andWhere('last_settled_at', '>=', paidSince)
          .first('resource')
        if (known === undefined) {
          const [{ count }] = (await trx(TABLE)
            .where({ pay_to: entry.payTo })
            .andWhere('last_settled_at', '>=', paidSince)
            .count({ count: '*' })) as [{ count: string | number }]
          if (Number(count) >= maxPerPayee) return 'payee_full' as const
        }
        const row = rowOf(entry)
        // A new entry of a (resource, operation) the operator hid stays hidden, whoever declares it; a known one keeps
        // its own flag (the merge leaves it).
        const hiddenBefore = await trx(TABLE)
          .where({ resource: entry.resource, operation: entry.operation, hidden: true })
          .first('resource')
        await trx(TABLE)
          .insert({
            ...row,
            tags: row.tags === null ? null : JSON.stringify(row.tags),
            hidden: hiddenBefore !== undefined,
          })
          .onConflict(['resource', 'operation', 'pay_to'])
          .merge(Object.keys(row))
        return 'recorded' as const
      }),
    ),
  list: (query, paidSince) =>
    journalCall('discovery list', timeoutMs, async () => {
      const [{ total }] = (await matching(listings, query, paidSince).count({ total: '*' })) as [
        { total: string | number },
      ]
      const rows = (await matching(listings, query, paidSince)
        .select<CatalogRow[]>(
          'resource',
          'operation',
          'pay_to',
          'type',
          'x402_version',
          'description',
          'mime_type',
          'service_name',
          'tags',
          'icon_url',
          'accepts',
          'extensions',
          'network',
          'asset',
          'scheme',
          'last_settled_at',
        )
        .orderBy('last_settled_at', 'desc')
        .orderByRaw('resource collate "C", operation collate "C", pay_to collate "C"')
        .limit(query.limit)
        .offset(query.offset)) as CatalogRow[]
      return { entries: rows.map(entryOf), total: Number(total) }
    }),
  hide: ({ resource, operation, payTo }, hidden) =>
    journalCall('discovery hide', timeoutMs, async () => {
      const builder = knex(TABLE).where({ resource })
      if (operation !== undefined) builder.andWhere({ operation })
      if (payTo !== undefined) builder.andWhere({ pay_to: payTo })
      return builder.update({ hidden })
    }),
})
