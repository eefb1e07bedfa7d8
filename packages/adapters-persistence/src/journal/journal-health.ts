import type { UnfinishedState } from '@x402-facilitator/domain'
import type { Knex } from 'knex'
import { migrationSource } from '../migrations/index.js'

/**
 * Rows per unfinished state, for the `settlements by state` metric. Ended rows are not counted: their count grows
 * with the table, and counting it scans the table. Each half's predicate is exactly that of a partial index
 * (`settlements_unfinished_idx`, `settlements_confirmed_idx`), so each is an index-only scan of unfinished rows.
 * Measured with EXPLAIN ANALYZE on 100,000 rows, 300 of them unfinished (Postgres 18): 0.27 ms; `group by state` over
 * the table was a sequential scan of 46 ms, and a single `state in (…3 states)` filter matches neither index: 44 ms.
 */
export const countUnfinishedSettlements = async (knex: Knex): Promise<Record<UnfinishedState, number>> => {
  const { rows } = await knex.raw<{ rows: Array<{ state: string; count: string }> }>(
    `select state, count(*) as count from settlements where state in ('claimed', 'submitted') group by state
     union all select 'confirmed', count(*) from settlements where state = 'confirmed'`,
  )
  const counts = Object.fromEntries(rows.map((r) => [r.state, Number(r.count)]))
  return { claimed: counts.claimed ?? 0, submitted: counts.submitted ?? 0, confirmed: counts.confirmed ?? 0 }
}

/** Migrations this code knows that the database has not applied (readiness). */
export const pendingMigrations = async (knex: Knex, tableName?: string): Promise<ReadonlyArray<string>> => {
  // Without a name, knex's configured (or default) table: a `tableName: undefined` would override it. knex answers
  // `any`: the migrations applied, then those pending.
  const [, pending]: [unknown[], Array<{ file: string } | string>] = await knex.migrate.list({
    migrationSource,
    ...(tableName ? { tableName } : {}),
  })
  return pending.map((m) => (typeof m === 'string' ? m : m.file))
}
