import { expect } from 'chai'
import type { Knex } from 'knex'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, '0')}`
let nonces = 0

const insertSubmitted = async (knex: Knex): Promise<string> => {
  const [row] = await knex('settlements')
    .insert({
      network: 'base-sepolia',
      asset: hex(1, 20),
      payer: hex(2, 20),
      nonce: hex(++nonces, 32),
      payee: hex(3, 20),
      value: '1000',
      valid_after: '0',
      valid_before: '99999999999',
      signature: '0x00',
      requirements: {},
      state: 'claimed',
      owner: hex(4, 20),
    })
    .returning('id')
  const id = String((row as { id: string }).id)
  await knex('settlements')
    .where({ id })
    .update({ state: 'submitted', tx_hash: hex(9, 32) })
  return id
}

/**
 * Migration 0011 (docs/ARCHITECTURE.md §5.5, §5.9): a released row whose transaction was mined after all is confirmed
 * for the first time, its event `confirmed`; a batch-released row (its block recorded) that a reorg re-mined still
 * tells its reorg, then `settled_again`.
 */
describe('the event of a released row mined after all (migration 0011)', () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(async () => {
    await db?.drop()
  })
  const kinds = async (id: string) =>
    (await db.knex('settlement_events').where({ settlement_id: id }).orderBy('id').select('kind')).map((e) => e.kind)
  const move = (id: string, fields: Record<string, unknown>) => db.knex('settlements').where({ id }).update(fields)

  it('released with no block, then confirmed: confirmed, then final', async () => {
    const id = await insertSubmitted(db.knex)
    await move(id, { state: 'released', error: 'the node refuses it' })
    await move(id, { state: 'confirmed', block_number: '5', block_hash: hex(1, 32), gas_used: '50000', error: null })
    await move(id, { state: 'final' })
    expect(await kinds(id)).to.deep.equal(['pending', 'released', 'confirmed', 'final'])
  })

  it('released with its block recorded (a batch reverted whole), then re-mined: reorged, then settled_again', async () => {
    const id = await insertSubmitted(db.knex)
    await move(id, { state: 'released', block_number: '5', block_hash: hex(1, 32) })
    await move(id, { state: 'confirmed', block_number: '6', block_hash: hex(2, 32), gas_used: '50000' })
    expect(await kinds(id)).to.deep.equal(['pending', 'released', 'reorged', 'settled_again'])
  })

  it('confirmed, reorged, released, then mined after all: settled_again, never a second confirmed (0013)', async () => {
    const id = await insertSubmitted(db.knex)
    await move(id, { state: 'confirmed', block_number: '5', block_hash: hex(1, 32), gas_used: '50000' })
    await move(id, { state: 'submitted', block_number: null, block_hash: null, gas_used: null, reorged_at: new Date() })
    await move(id, { state: 'released', error: 'the node refuses it' })
    await move(id, { state: 'confirmed', block_number: '7', block_hash: hex(3, 32), gas_used: '50000', error: null })
    expect(await kinds(id)).to.deep.equal(['pending', 'confirmed', 'reorged', 'released', 'settled_again'])
  })
})
