import { settlementJournalContract } from '@x402-facilitator/domain/journal-contract'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

describe('PgSettlementJournal', () => {
  let database: JournalDatabase
  before(async () => {
    database = await journalDatabase()
  })
  after(() => database.close())

  settlementJournalContract('the SettlementJournal contract, on Postgres', async () => {
    const { db, journal } = database
    await db.knex.raw('truncate settlement_attempts, settlements')
    return {
      journal,
      setUpdatedAt: async (id, at) => {
        await db.knex('settlements').where({ id }).update({ updated_at: at })
      },
    }
  })
})
