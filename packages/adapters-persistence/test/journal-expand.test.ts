import { expect } from 'chai'
import type { Knex } from 'knex'
import { journalIndexes, ensureJournalIndexes } from '../src/journal/journal-indexes.js'
import { registerJournalNetworks, UnknownJournalNetworks } from '../src/journal/journal-networks.js'
import { migrateToLatest } from '../src/database/migrate-to-latest.js'
import { migrationSource, migrations } from '../src/migrations/index.js'
import { createKnex, silentKnexLog } from '../src/database/create-knex.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'
import { rejection } from './rejection.js'

let serial = 0
/** A row as the previous release's claim inserts it: every column but `chain_id`. */
const previousReleaseRow = (network: string, state = 'claimed') => ({
  network,
  asset: `0x${'1'.repeat(40)}`,
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

const chainIds = async (knex: Knex) =>
  (await knex('settlements').select('network', 'chain_id').orderBy('id')).map(
    (r: { network: string; chain_id: string }) => [r.network, r.chain_id],
  )

const indexValidity = async (knex: Knex) =>
  Object.fromEntries(
    (
      await knex.raw<{ rows: Array<{ name: string; valid: boolean }> }>(
        `select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
         where c.relname like 'settlements_chain_%' order by 1`,
      )
    ).rows.map((r) => [r.name, r.valid]),
  )

describe('the journal expand for many networks (migration 0007, indexes, networks)', () => {
  const opened: TestDatabase[] = []
  after(() => Promise.all(opened.map((db) => db.drop())))
  const fresh = async (migrate: boolean) => {
    const db = await createTestDatabase({ migrate })
    opened.push(db)
    return db
  }

  it("fills the chain of the previous release's rows, in batches; leaves finished rows of unserved networks", async () => {
    const db = await fresh(false)
    // The previous release's schema and rows.
    await db.knex.migrate.latest({
      migrationSource: { ...migrationSource, getMigrations: async () => migrations.slice(0, 6) },
    })
    await db
      .knex('settlements')
      .insert([
        previousReleaseRow('base-sepolia'),
        previousReleaseRow('base'),
        previousReleaseRow('base-sepolia', 'final'),
        previousReleaseRow('gone', 'final'),
        previousReleaseRow('base-sepolia', 'submitted'),
      ])
    await migrateToLatest(db.knex)
    expect(await ensureJournalIndexes(db.connectionString)).to.deep.equal(journalIndexes.map((i) => i.name))
    const lines: string[] = []
    await registerJournalNetworks(
      db.knex,
      [
        { name: 'base-sepolia', chainId: 'eip155:84532' },
        { name: 'base', chainId: 'eip155:8453' },
      ],
      { batchRows: 2, progress: (line) => lines.push(line) },
    )
    expect(await chainIds(db.knex)).to.deep.equal([
      ['base-sepolia', 'eip155:84532'],
      ['base', 'eip155:8453'],
      ['base-sepolia', 'eip155:84532'],
      ['gone', null],
      ['base-sepolia', 'eip155:84532'],
    ])
    expect(lines).to.deep.equal(['the journal keeps 1 finished settlements of gone, a network not served'])
  })

  it('refuses to start over unfinished rows of a network not served, naming it and counting them', async () => {
    const db = await fresh(true)
    await db
      .knex('settlements')
      .insert([
        previousReleaseRow('gone', 'submitted'),
        previousReleaseRow('gone', 'confirmed'),
        previousReleaseRow('left', 'claimed'),
        previousReleaseRow('base', 'claimed'),
      ])
    const refused = await rejection(registerJournalNetworks(db.knex, [{ name: 'base', chainId: 'eip155:8453' }]))
    expect(refused).to.be.instanceOf(UnknownJournalNetworks)
    expect(refused.message).to.equal(
      'the journal holds unfinished settlements of networks or tokens not configured: gone (2), left (1): refusing ' +
        'to start. Configure those networks and tokens again, or finish their rows first.',
    )
  })

  it("refuses this release's unfinished rows of a network or token no longer served, naming the token", async () => {
    const db = await fresh(true)
    const usdc = `0x${'1'.repeat(40)}`
    const eurc = `0x${'7'.repeat(40)}`
    await registerJournalNetworks(db.knex, [
      { name: 'base', chainId: 'eip155:8453', assets: [usdc, eurc] },
      { name: 'polygon', chainId: 'eip155:137' },
    ])
    // Written by this release: each with its chain.
    await db.knex('settlements').insert([
      { ...previousReleaseRow('base', 'submitted'), chain_id: 'eip155:8453', asset: eurc },
      { ...previousReleaseRow('base', 'final'), chain_id: 'eip155:8453', asset: eurc },
      { ...previousReleaseRow('polygon', 'confirmed'), chain_id: 'eip155:137' },
      { ...previousReleaseRow('base', 'submitted'), chain_id: 'eip155:8453', asset: usdc },
    ])
    // EURC and polygon dropped from the configuration: their unfinished rows would never be followed again.
    const refused = await rejection(
      registerJournalNetworks(db.knex, [{ name: 'base', chainId: 'eip155:8453', assets: [usdc] }]),
    )
    expect(refused).to.be.instanceOf(UnknownJournalNetworks)
    expect(refused.message).to.include(`base ${eurc} (1), polygon (1): refusing to start`)
    // Served again, it starts.
    await registerJournalNetworks(db.knex, [
      { name: 'base', chainId: 'eip155:8453', assets: [usdc.toUpperCase().replace('0X', '0x'), eurc] },
      { name: 'polygon', chainId: 'eip155:137' },
    ])
  })

  it('refuses a name recorded with another chain id, and a chain id recorded under another name', async () => {
    const db = await fresh(true)
    await registerJournalNetworks(db.knex, [{ name: 'base', chainId: 'eip155:8453' }])
    await registerJournalNetworks(db.knex, [{ name: 'base', chainId: 'eip155:8453' }])
    for (const network of [
      { name: 'base', chainId: 'eip155:1' },
      { name: 'base-mainnet', chainId: 'eip155:8453' },
    ]) {
      const refused = await rejection(registerJournalNetworks(db.knex, [network]))
      expect(refused.message).to.include('the journal records network base as eip155:8453').and.include('refusing')
    }
  })

  it('fills the chain of a row a previous-release replica inserts without it, while this release runs', async () => {
    const db = await fresh(true)
    await registerJournalNetworks(db.knex, [{ name: 'base-sepolia', chainId: 'eip155:84532' }])
    await db.knex('settlements').insert([previousReleaseRow('base-sepolia'), previousReleaseRow('elsewhere')])
    await db.knex('settlements').insert({ ...previousReleaseRow('base-sepolia'), chain_id: 'eip155:84532' })
    expect(await chainIds(db.knex)).to.deep.equal([
      ['base-sepolia', 'eip155:84532'],
      ['elsewhere', null],
      ['base-sepolia', 'eip155:84532'],
    ])
  })

  it('fills the chain of a row inserted by a role that may write settlements but not lock journal_networks', async () => {
    const db = await fresh(true)
    await registerJournalNetworks(db.knex, [{ name: 'base', chainId: 'eip155:8453' }])
    // A previous-release replica's role, granted what its release needed: rows of settlements, nothing more.
    const role = `previous_release_${Math.random().toString(36).slice(2, 10)}`
    await db.knex.raw(`create role ${role} login password 'previous'`)
    await db.knex.raw(`grant select, insert on settlements to ${role}`)
    await db.knex.raw(`grant usage on all sequences in schema public to ${role}`)
    const url = new URL(db.connectionString)
    url.username = role
    url.password = 'previous'
    const writer = createKnex({ connectionString: url.toString(), timeoutMs: 5_000, log: silentKnexLog })
    try {
      await writer('settlements').insert(previousReleaseRow('base'))
    } finally {
      await writer.destroy()
      await db.knex.raw(`drop owned by ${role}`)
      await db.knex.raw(`drop role ${role}`)
    }
    expect(await chainIds(db.knex)).to.deep.equal([['base', 'eip155:8453']])
  })

  it('builds the indexes once, two replicas at once; an index a failed build left invalid is built again', async () => {
    const db = await fresh(true)
    expect(await ensureJournalIndexes(db.connectionString)).to.deep.equal([])
    for (const { name } of journalIndexes) await db.knex.raw(`drop index ${name}`)
    const [one, other] = await Promise.all([
      ensureJournalIndexes(db.connectionString),
      ensureJournalIndexes(db.connectionString),
    ])
    expect([...one, ...other].sort()).to.deep.equal(journalIndexes.map((i) => i.name).sort())
    expect(Object.values(await indexValidity(db.knex))).to.deep.equal(journalIndexes.map(() => true))

    // Two rows of one chain and authorization (names mapped by hand): the unique build fails, its index left invalid.
    // (0008's nonce-space key would refuse them too: dropped, it is built again after.)
    await db.knex.raw('drop index settlements_chain_key_idx')
    await db.knex.raw('drop index settlements_chain_nonce_space_key_idx')
    const twin = previousReleaseRow('a')
    await db.knex('settlements').insert([
      { ...twin, chain_id: 'eip155:1' },
      { ...twin, network: 'b', chain_id: 'eip155:1' },
    ])
    expect((await rejection(ensureJournalIndexes(db.connectionString))).message).to.include('could not create unique')
    expect((await indexValidity(db.knex)).settlements_chain_key_idx).to.equal(false)
    await db.knex('settlements').where({ network: 'b' }).delete()
    expect(await ensureJournalIndexes(db.connectionString)).to.deep.equal([
      'settlements_chain_key_idx',
      'settlements_chain_nonce_space_key_idx',
    ])
    expect((await indexValidity(db.knex)).settlements_chain_key_idx).to.equal(true)
    expect(await ensureJournalIndexes(db.connectionString)).to.deep.equal([])
  })
})
