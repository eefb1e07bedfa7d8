import { expect } from 'chai'
import { left, newPermit2Settlement, newSettlement, right } from '@x402-facilitator/domain/journal-contract'
import { createPgPool } from '../src/database/create-pg-pool.js'
import { ensureJournalIndexes } from '../src/journal/journal-indexes.js'
import { registerJournalNetworks } from '../src/journal/journal-networks.js'
import { migrateToLatest } from '../src/database/migrate-to-latest.js'
import { migrationSource, migrations } from '../src/migrations/index.js'
import { makePgSettlementJournal } from '../src/journal/pg-settlement-journal.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'
import { rejection } from './rejection.js'

const token = `0x${'1'.repeat(40)}`
const permit2 = '0x000000000022d473030f116ddee9f6b43ac78ba3'
let serial = 0
/** A row as the previous release's claim inserts it: its chain, no nonce space, no Permit2 terms. */
const previousReleaseRow = (state = 'claimed') => ({
  network: 'base',
  chain_id: 'eip155:8453',
  asset: token,
  payer: `0x${'2'.repeat(40)}`,
  nonce: `0x${(++serial).toString(16).padStart(64, '0')}`,
  payee: `0x${'4'.repeat(40)}`,
  value: '1',
  valid_after: '0',
  valid_before: '1',
  signature: '0x',
  requirements: '{}',
  state,
  owner: `0x${'5'.repeat(40)}`,
})

describe('the journal expand for Permit2 (migration 0008: nonce spaces, Permit2 terms, waived)', () => {
  const opened: TestDatabase[] = []
  after(() => Promise.all(opened.map((db) => db.drop())))
  const fresh = async (migrate: boolean) => {
    const db = await createTestDatabase({ migrate })
    opened.push(db)
    return db
  }
  const nonceSpaces = async (db: TestDatabase) =>
    (await db.knex('settlements').select('nonce_space').orderBy('id')).map(
      (r: { nonce_space: string }) => r.nonce_space,
    )

  it('fills the nonce space of old rows in batches at start-up, and of rows the previous release inserts', async () => {
    const db = await fresh(false)
    await db.knex.migrate.latest({
      migrationSource: { ...migrationSource, getMigrations: async () => migrations.slice(0, 7) },
    })
    await db.knex('settlements').insert([1, 2, 3, 4, 5].map(() => previousReleaseRow('final')))
    await migrateToLatest(db.knex)
    await ensureJournalIndexes(db.connectionString)
    expect(await nonceSpaces(db)).to.deep.equal([null, null, null, null, null])
    await registerJournalNetworks(db.knex, [{ name: 'base', chainId: 'eip155:8453' }], { batchRows: 2 })
    expect(await nonceSpaces(db)).to.deep.equal([token, token, token, token, token])
    // Inserted by a previous-release replica while this release runs: the trigger fills it; a given one is kept.
    await db.knex('settlements').insert(previousReleaseRow())
    await db.knex('settlements').insert({ ...previousReleaseRow(), nonce_space: permit2 })
    expect((await nonceSpaces(db)).slice(5)).to.deep.equal([token, permit2])
  })

  it('allows state waived; refuses an unknown state and a row of another nonce space without its chain', async () => {
    const db = await fresh(true)
    await db.knex('settlements').insert(previousReleaseRow('waived'))
    const unknown = await rejection(db.knex('settlements').insert(previousReleaseRow('forgotten')))
    expect(unknown.message).to.include('settlements_state_check')
    const chainless = await rejection(
      db.knex('settlements').insert({ ...previousReleaseRow(), chain_id: null, nonce_space: permit2 }),
    )
    expect(chainless.message).to.include('settlements_nonce_space_chain_check')
  })

  it('refuses Permit2 claims, writing nothing, until the nonce-space key is valid; EIP-3009 claims go on', async () => {
    const db = await fresh(true)
    await registerJournalNetworks(db.knex, [{ name: newSettlement().network, chainId: 'eip155:84532' }])
    const pool = createPgPool({ connectionString: db.connectionString, timeoutMs: 10_000 })
    try {
      const journal = makePgSettlementJournal(pool)
      await db.knex.raw('drop index settlements_chain_nonce_space_key_idx')
      // Two in one tick: their shared statement refused, then each alone.
      const refusals = await Promise.all([
        left(journal.claim(newPermit2Settlement())),
        left(journal.claim(newPermit2Settlement())),
      ])
      for (const refused of refusals) {
        expect(refused.nothingWritten).to.equal(true)
        expect(refused.reason).to.include('no unique or exclusion constraint matching the ON CONFLICT')
      }
      expect(await db.knex('settlements').count('* as count')).to.deep.equal([{ count: '0' }])
      expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
      expect(await ensureJournalIndexes(db.connectionString)).to.deep.equal(['settlements_chain_nonce_space_key_idx'])
      expect((await right(journal.claim(newPermit2Settlement())))._tag).to.equal('Claimed')
    } finally {
      await pool.end()
    }
  })
})
