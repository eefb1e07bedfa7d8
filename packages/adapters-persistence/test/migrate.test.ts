import { expect } from 'chai'
import type { Knex } from 'knex'
import { createKnex, silentKnexLog } from '../src/database/create-knex.js'
import { migrateToLatest } from '../src/database/migrate-to-latest.js'
import { migrations } from '../src/migrations/index.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const tables = async (knex: Knex): Promise<string[]> => {
  const result = await knex.raw<{ rows: Array<{ tablename: string }> }>(
    `select tablename from pg_tables where schemaname = 'public' order by tablename`,
  )
  return result.rows.map((row) => row.tablename)
}

describe('migrateToLatest', () => {
  const opened: TestDatabase[] = []
  const replicas: Knex[] = []
  after(async () => {
    await Promise.all(replicas.map((knex) => knex.destroy()))
    await Promise.all(opened.map((db) => db.drop()))
  })

  const fresh = async () => {
    const db = await createTestDatabase({ migrate: false })
    opened.push(db)
    return db
  }
  const replica = (db: TestDatabase) => {
    const knex = createKnex({ connectionString: db.connectionString, log: silentKnexLog })
    replicas.push(knex)
    return knex
  }

  it('lets concurrent replicas migrate a fresh database: all succeed, one applies', async () => {
    const db = await fresh()
    const results = await Promise.all([1, 2, 3, 4].map(() => migrateToLatest(replica(db))))
    const applied = results.flatMap((result) => result.applied)
    expect(applied).to.deep.equal(migrations.map((migration) => migration.name))
    expect(await tables(db.knex)).to.include.members(['settlements', 'settlement_attempts', 'knex_migrations'])
    const again = await migrateToLatest(db.knex)
    expect(again.applied).to.deep.equal([])
  })

  it("waits while knex's migration lock is held by someone else, then succeeds", async () => {
    const db = await fresh()
    await migrateToLatest(db.knex)
    await db.knex('knex_migrations_lock').update({ is_locked: 1 })
    const retries: string[] = []
    let retried: () => void = () => undefined
    const firstRetry = new Promise<void>((resolve) => (retried = resolve))
    const migrating = migrateToLatest(replica(db), {
      maxWaitMs: 10_000,
      onRetry: (reason) => {
        retries.push(reason)
        retried()
      },
    })
    // Unlocked once the migration has met the lock (or has ended: then the expectations below fail).
    await Promise.race([firstRetry, migrating])
    await db.knex('knex_migrations_lock').update({ is_locked: 0 })
    await migrating
    expect(retries.length).to.be.greaterThan(0)
    expect(retries[0]).to.include('Migration table is already locked')
  })

  it('gives up with a clear message when the lock stays held past the bound', async () => {
    const db = await fresh()
    await migrateToLatest(db.knex)
    await db.knex('knex_migrations_lock').update({ is_locked: 1 })
    let failure: Error | undefined
    const started = Date.now()
    await migrateToLatest(db.knex, { maxWaitMs: 600 }).catch((error: Error) => (failure = error))
    expect(Date.now() - started).to.be.at.least(600)
    expect(failure?.message).to.include('still locked').and.include('is_locked = 0')
  })

  it('keeps amounts within uint256, the key unique and the state one of the five at the database', async () => {
    const db = await fresh()
    await migrateToLatest(db.knex)
    const row = {
      network: 'n',
      asset: `0x${'1'.repeat(40)}`,
      payer: `0x${'2'.repeat(40)}`,
      nonce: `0x${'3'.repeat(64)}`,
      payee: `0x${'4'.repeat(40)}`,
      value: (2n ** 256n).toString(),
      valid_after: '0',
      valid_before: '1',
      signature: '0x',
      requirements: '{}',
      state: 'claimed',
      owner: `0x${'5'.repeat(40)}`,
    }
    const code = (error: unknown) => (error instanceof Error && 'code' in error ? error.code : undefined)
    expect(
      await db
        .knex('settlements')
        .insert(row)
        .then(() => 'inserted', code),
    ).to.equal('23514')
    await db.knex('settlements').insert({ ...row, value: (2n ** 256n - 1n).toString() })
    expect(
      await db
        .knex('settlements')
        .insert({ ...row, value: '1' })
        .then(() => 'inserted', code),
    ).to.equal('23505')
    expect(
      await db
        .knex('settlements')
        .insert({ ...row, nonce: '0xABC' })
        .then(() => 'inserted', code),
    ).to.equal('23514')
    expect(
      await db
        .knex('settlements')
        .insert({ ...row, nonce: `0x${'6'.repeat(64)}`, state: 'lost' })
        .then(() => 'inserted', code),
    ).to.equal('23514')
  })
})
