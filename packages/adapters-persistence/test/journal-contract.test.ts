import { newSettlement, settlementJournalContract, SVM_SAMPLE_NETWORK } from '@x402-facilitator/domain/journal-contract'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

describe('PgSettlementJournal', () => {
  let database: JournalDatabase
  before(async () => {
    database = await journalDatabase()
    // A Permit2 row needs its chain (migration 0008): the unscoped journal takes it from its network's record.
    await database.db.knex('journal_networks').insert({ name: newSettlement().network, chain_id: 'eip155:84532' })
    // A Solana row's checks are its family's, told by its chain id (migration 0016).
    await database.db.knex('journal_networks').insert({ name: SVM_SAMPLE_NETWORK, chain_id: SVM_SAMPLE_NETWORK })
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
