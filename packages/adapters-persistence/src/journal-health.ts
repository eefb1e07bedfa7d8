import type { Knex } from 'knex'
import { migrationSource } from './migrations/index.js'

/** Rows per state, for the `settlements by state` metric. */
export const countSettlementsByState = async (knex: Knex): Promise<Record<string, number>> => {
  const rows = await knex('settlements').select('state').count<Array<{ state: string; count: string }>>('* as count').groupBy('state')
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.count)]))
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
