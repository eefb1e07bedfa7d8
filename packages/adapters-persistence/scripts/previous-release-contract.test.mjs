// Run by previous-release-contract.sh: PREVIOUS_RELEASE_DIST is that release's adapters-persistence, compiled.
/* global describe, before, after, it */
import { createTestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { newSettlement, right, settlementJournalContract } from '@x402-facilitator/domain/journal-contract'
import { expect } from 'chai'

const dist = process.env.PREVIOUS_RELEASE_DIST
if (dist === undefined) throw new Error('PREVIOUS_RELEASE_DIST: the previous release compiled (see the script)')
const { makePgSettlementJournal } = await import(`${dist}/pg-settlement-journal.js`)
const { createPgPool } = await import(`${dist}/create-pg-pool.js`)
const network = newSettlement().network

describe("the previous release's journal on this release's schema", () => {
  let db
  let pool
  let journal
  before(async () => {
    db = await createTestDatabase()
    await db.knex('journal_networks').insert({ name: network, chain_id: network })
    pool = createPgPool({ connectionString: db.connectionString, timeoutMs: 10_000 })
    journal = makePgSettlementJournal(pool)
  })
  after(async () => {
    await pool.end()
    await db.drop()
  })

  // It knows no Permit2 claim nor payment log: those parts of the contract are this release's alone.
  settlementJournalContract(
    'its SettlementJournal contract',
    async () => {
      await db.knex.raw('truncate settlement_attempts, settlements')
      return {
        journal,
        setUpdatedAt: async (id, at) => {
          await db.knex('settlements').where({ id }).update({ updated_at: at })
        },
      }
    },
    { permit2: false, releasedMined: false, paymentLog: false, otherFamilyRows: false },
  )

  it('its rows, inserted without a chain id, take the one journal_networks records for their network', async () => {
    await db.knex.raw('truncate settlement_attempts, settlements')
    await Promise.all([right(journal.claim(newSettlement())), right(journal.claim(newSettlement()))])
    expect((await db.knex('settlements').select('chain_id')).map((row) => row.chain_id)).to.deep.equal([
      network,
      network,
    ])
  })

  it('its rows, inserted without a nonce space, take their token (migration 0008)', async () => {
    await db.knex.raw('truncate settlement_attempts, settlements')
    const claim = newSettlement()
    await right(journal.claim(claim))
    expect(await db.knex('settlements').select('nonce_space', 'permit2')).to.deep.equal([
      { nonce_space: claim.asset, permit2: null },
    ])
  })
})
