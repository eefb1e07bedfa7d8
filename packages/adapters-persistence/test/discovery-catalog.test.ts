import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { catalogEntry, discoveryCatalogContract } from '@x402-facilitator/domain/discovery-contract'
import { makePgDiscoveryCatalog } from '../src/discovery/pg-discovery-catalog.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

describe('the discovery catalog on Postgres (migration 0018)', () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(() => db.drop())

  discoveryCatalogContract('Postgres', async () => {
    await db.knex.raw('truncate discovery_resources')
    return { catalog: makePgDiscoveryCatalog(db.knex), close: async () => {} }
  })

  it("keeps a payee's cap under concurrent declarations of new resources", async () => {
    await db.knex.raw('truncate discovery_resources')
    const catalog = makePgDiscoveryCatalog(db.knex)
    const bounds = { maxPerPayee: 5, paidSince: new Date('2020-01-01T00:00:00Z') }
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        catalog.record(catalogEntry({ resource: `https://x.example/${i}` }), bounds)(),
      ),
    )
    expect(outcomes.filter((o) => E.isRight(o) && o.right === 'recorded')).to.have.length(5)
    expect(outcomes.filter((o) => E.isRight(o) && o.right === 'payee_full')).to.have.length(15)
    const [{ count }] = (await db.knex('discovery_resources').count({ count: '*' })) as [{ count: string }]
    expect(Number(count)).to.equal(5)
  })

  it('answers the journal unavailable, never throws, when Postgres does not answer', async () => {
    const closed = await createTestDatabase()
    await closed.drop()
    const outcome = await makePgDiscoveryCatalog(closed.knex, 1_000).list({ limit: 1, offset: 0 }, new Date(0))()
    expect(E.isLeft(outcome) && outcome.left._tag).to.equal('JournalUnavailable')
  })
})
