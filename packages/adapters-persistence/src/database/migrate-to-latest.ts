import type { Knex } from 'knex'
import { advisoryLockKey } from '../replicas/advisory-lock.js'
import { migrationSource } from '../migrations/index.js'

export interface MigrateOptions {
  /** How long to keep retrying while another process holds a migration lock [60 000 ms]. */
  readonly maxWaitMs?: number
  readonly tableName?: string
  readonly onRetry?: (reason: string, attempt: number) => void
}

export interface MigrateResult {
  readonly batch: number
  readonly applied: ReadonlyArray<string>
}

class MigrationBusy extends Error {
  constructor() {
    super('another process is running the migrations')
    this.name = 'MigrationBusy'
  }
}

const migrationLockKey = advisoryLockKey('x402-facilitator/migrations')

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Lock contention that goes away once the other migrator is done: our own advisory lock, knex's lock row
 * (docs/ARCHITECTURE.md §8: "Migration table is already locked"), and the catalog races of two `create table`s
 * run by a migrator that does not take our advisory lock (e.g. the knex CLI).
 */
const isContention = (error: unknown): error is Error => {
  if (error instanceof MigrationBusy) return true
  if (!(error instanceof Error)) return false
  if (error.name === 'MigrationLocked' || error.message.includes('Migration table is already locked')) return true
  const code = 'code' in error ? error.code : undefined
  return code === '23505' || code === '42P07' || code === '40P01' || code === '40001'
}

/**
 * Applies the pending migrations in one transaction, so a crash leaves neither half a schema nor a stuck
 * knex lock row. Replicas starting together take turns through an advisory lock and otherwise wait with
 * backoff, up to `maxWaitMs`.
 */
export const migrateToLatest = async (knex: Knex, options: MigrateOptions = {}): Promise<MigrateResult> => {
  const maxWaitMs = options.maxWaitMs ?? 60_000
  const tableName = options.tableName ?? 'knex_migrations'
  const started = Date.now()
  for (let attempt = 1; ; attempt++) {
    try {
      // knex answers `any`: the batch number and the names of the migrations applied.
      const [batch, applied]: [number, string[]] = await knex.transaction(async (trx) => {
        // The journal's statement bound is for hot-path statements, not for DDL.
        await trx.raw('set local statement_timeout = 0')
        const locked = await trx.raw<{ rows: Array<{ ok: boolean }> }>(
          'select pg_try_advisory_xact_lock(?::bigint) as ok',
          [migrationLockKey],
        )
        if (locked.rows[0]?.ok !== true) throw new MigrationBusy()
        return trx.migrate.latest({ migrationSource, tableName })
      })
      return { batch, applied }
    } catch (error) {
      const waited = Date.now() - started
      if (!isContention(error)) throw error
      if (waited >= maxWaitMs) {
        throw new Error(
          `migrations: still locked after ${waited} ms (${error.message}). If no migration is running, ` +
            `a stale knex lock can be freed with "update ${tableName}_lock set is_locked = 0".`,
          { cause: error },
        )
      }
      options.onRetry?.(error.message, attempt)
      const backoff = Math.min(1_000, 25 * 2 ** Math.min(attempt, 6))
      await sleep(Math.min(backoff / 2 + Math.random() * (backoff / 2), Math.max(0, maxWaitMs - waited)))
    }
  }
}
