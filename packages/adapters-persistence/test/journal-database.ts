import type { SettlementJournal } from '@x402-facilitator/domain'
import type pg from 'pg'
import { createPgPool } from '../src/database/create-pg-pool.js'
import { makePgSettlementJournal, type PgSettlementJournalOptions } from '../src/journal/pg-settlement-journal.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

export interface JournalDatabase {
  readonly db: TestDatabase
  readonly pool: pg.Pool
  readonly journal: SettlementJournal
  /** Another journal on the same pool: its calls of one tick batched apart from the others'. */
  readonly makeJournal: (options?: PgSettlementJournalOptions) => SettlementJournal
  /** Ends the pool and drops the database. */
  readonly close: () => Promise<void>
}

/** A fresh migrated database and a journal on a pool of its own, for one test file; `close()` it in `after`. */
export const journalDatabase = async (options: PgSettlementJournalOptions = {}): Promise<JournalDatabase> => {
  const db = await createTestDatabase()
  const pool = createPgPool({ connectionString: db.connectionString, timeoutMs: 10_000 })
  return {
    db,
    pool,
    journal: makePgSettlementJournal(pool, options),
    makeJournal: (journalOptions = {}) => makePgSettlementJournal(pool, journalOptions),
    close: async () => {
      await pool.end()
      await db.drop()
    },
  }
}
