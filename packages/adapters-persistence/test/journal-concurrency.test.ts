import { expect } from 'chai'
import { claimed, newSettlement, refOf, right } from '@x402-facilitator/domain/journal-contract'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

describe('PgSettlementJournal: concurrent claims', () => {
  let database: JournalDatabase

  before(async () => {
    database = await journalDatabase()
  })
  after(() => database.close())

  it('lets exactly one of 20 concurrent claims of one authorization win; the others see its row', async () => {
    const { db, journal } = database
    const input = newSettlement()
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => right(journal.claim({ ...input, idempotencyKey: `concurrent-${i}` }))),
    )
    const winners = results.filter((r) => r._tag === 'Claimed')
    expect(winners).to.have.length(1)
    const winner = claimed(winners[0]!)
    for (const r of results.filter((r) => r._tag === 'Conflict')) {
      if (r._tag === 'Conflict') expect(r.existing).to.deep.include({ id: winner.id, generation: 1, state: 'claimed' })
    }
    const count = await db
      .knex('settlements')
      .where({ nonce: input.nonce })
      .count<Array<{ count: string }>>('* as count')
    expect(count[0]?.count).to.equal('1')
  })

  it('lets one of 10 concurrent claims of a released row win', async () => {
    const { journal } = database
    const input = newSettlement()
    const first = claimed(await right(journal.claim(input)))
    await right(journal.markReleased(refOf(first), 'claimed', 'not broadcast'))
    const results = await Promise.all(Array.from({ length: 10 }, () => right(journal.claim(input))))
    expect(results.filter((r) => r._tag === 'Claimed')).to.have.length(1)
    for (const r of results) {
      const row = r._tag === 'Claimed' ? r.settlement : r.existing
      expect(row).to.deep.include({ generation: 2, state: 'claimed' })
    }
  })
})
