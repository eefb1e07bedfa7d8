import type { LeasedDelivery } from '@x402-facilitator/domain'
import { expect } from 'chai'
import type { Knex } from 'knex'
import { createPgPool, type PgPool } from '../src/database/create-pg-pool.js'
import { makePgWebhookOutbox } from '../src/webhooks/pg-webhook-outbox.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, '0')}`
let nonces = 0

/** A row inserted in `state`, as a claim writes it. */
const insertRow = async (knex: Knex, state = 'claimed', extra: Record<string, unknown> = {}): Promise<string> => {
  const [row] = await knex('settlements')
    .insert({
      ...extra,
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
      state,
      owner: hex(4, 20),
    })
    .returning('id')
  return String((row as { id: string }).id)
}

const move = (knex: Knex, id: string, fields: Record<string, unknown>) =>
  knex('settlements').where({ id }).update(fields)
const blockHash = (n: number) => hex(n, 32)

/** docs/ARCHITECTURE.md §5.9: the trigger of migration 0009 records each transition's event in its transaction. */
describe('settlement events (migration 0009)', () => {
  let db: TestDatabase
  let pool: PgPool
  before(async () => {
    db = await createTestDatabase()
    pool = createPgPool({ connectionString: db.connectionString, timeoutMs: 10_000 })
  })
  after(async () => {
    await pool?.end()
    await db?.drop()
  })
  const kinds = async (id: string) =>
    (await db.knex('settlement_events').where({ settlement_id: id }).orderBy('id').select('kind')).map((e) => e.kind)

  it("carries what a receipt states (migration 0010): scheme, transfer method and the payer's maximum", async () => {
    const { knex } = db
    const lone = await insertRow(knex)
    const permit2 = { scheme: 'upto', permitted: '5000', spender: hex(5, 20), facilitator: hex(6, 20) }
    const upto = await insertRow(knex, 'claimed', { permit2, nonce_space: hex(7, 20), chain_id: 'eip155:84532' })
    for (const id of [lone, upto]) await move(knex, id, { state: 'submitted', tx_hash: blockHash(9) })
    const settlementOf = async (id: string) =>
      (await knex('settlement_events').where({ settlement_id: id }).first('settlement')).settlement
    expect(await settlementOf(lone)).to.include({ scheme: 'exact', transferMethod: 'eip3009', maxAmount: '1000' })
    expect(await settlementOf(upto)).to.include({
      scheme: 'upto',
      transferMethod: 'permit2',
      maxAmount: '5000',
      value: '1000',
    })
  })

  it('derives each kind from the transition', async () => {
    const { knex } = db
    const settled = await insertRow(knex)
    await move(knex, settled, { state: 'submitted', tx_hash: blockHash(9) })
    await move(knex, settled, { state: 'confirmed', block_number: '5', block_hash: blockHash(1), gas_used: '50000' })
    await move(knex, settled, { state: 'final' })
    // markMinedAgain from final: its reorg, then its settling again, in one statement.
    await move(knex, settled, { state: 'confirmed', block_hash: blockHash(2) })
    await move(knex, settled, { state: 'submitted', reorged_at: new Date(), block_hash: null })
    await move(knex, settled, { state: 'confirmed', block_hash: blockHash(3), gas_used: '50000' })
    expect(await kinds(settled)).to.deep.equal([
      'pending',
      'confirmed',
      'final',
      'reorged',
      'settled_again',
      'reorged',
      'settled_again',
    ])

    const elsewhere = await insertRow(knex)
    await move(knex, elsewhere, { state: 'submitted' })
    await move(knex, elsewhere, { state: 'confirmed', block_hash: blockHash(4), gas_used: null })
    expect(await kinds(elsewhere)).to.deep.equal(['pending', 'settled_elsewhere'])

    const ends: Array<[string, string[]]> = [
      ['reverted', ['pending', 'reverted']],
      ['released', ['pending', 'released']],
      ['cancelled', ['pending', 'cancelled']],
      ['unsettleable', ['pending', 'unsettleable']],
    ]
    for (const [end, expected] of ends) {
      const id = await insertRow(knex)
      await move(knex, id, { state: 'submitted' })
      await move(knex, id, { state: end })
      expect(await kinds(id)).to.deep.equal(expected)
    }
    // Released before anything was sent: nobody was told anything, so no event; a claim again neither.
    const unsent = await insertRow(knex)
    await move(knex, unsent, { state: 'released' })
    await move(knex, unsent, { state: 'claimed', generation: 2 })
    expect(await kinds(unsent)).to.deep.equal([])
    expect(await kinds(await insertRow(knex, 'waived'))).to.deep.equal(['waived'])
  })

  it('an event is written in the transaction of its change: rolled back with it', async () => {
    const id = await insertRow(db.knex)
    await db.knex
      .transaction(async (trx) => {
        await move(trx, id, { state: 'submitted' })
        throw new Error('rolled back')
      })
      .catch(() => undefined)
    expect(await kinds(id)).to.deep.equal([])
  })

  it("leases a payment's events in order, and one delivery to one lease at a time", async () => {
    const outbox = makePgWebhookOutbox(pool)
    const id = await insertRow(db.knex)
    await move(db.knex, id, { state: 'submitted' })
    await move(db.knex, id, { state: 'confirmed', block_hash: blockHash(7), gas_used: '1' })
    const now = new Date()
    const until = new Date(now.getTime() + 10_000)
    // Room 0: fan-out leases nothing itself, every delivery is left to `lease`.
    const endpoint = { id: 'e', events: ['pending', 'confirmed'], room: 0 }
    while ((await outbox.fanOut([endpoint], now, 100, until)).fanned > 0);
    const leased = await Promise.all([1, 2, 3].map(() => outbox.lease('e', now, until, 100)))
    const mine = leased.flat().filter((d) => d.event.settlement.id === id)
    // Only the payment's head, and by one lease only.
    expect(mine.map((d) => d.event.kind)).to.deep.equal(['pending'])
    const delivered = (delivery: LeasedDelivery, at: Date) =>
      outbox.record([{ delivery, now: at, delivered: true, status: 204, error: null, retryAt: null }])
    expect([...(await delivered(mine[0]!, now))]).to.deep.equal([mine[0]!.id])
    const next = (await outbox.lease('e', now, until, 100)).filter((d) => d.event.settlement.id === id)
    expect(next.map((d) => d.event.kind)).to.deep.equal(['confirmed'])
    // A lease run out is taken again; the old lease's late answer then changes nothing.
    const later = new Date(until.getTime() + 1)
    const again = (await outbox.lease('e', later, new Date(later.getTime() + 10_000), 100)).filter(
      (d) => d.event.settlement.id === id,
    )
    expect(again.map((d) => [d.event.kind, d.attempts])).to.deep.equal([['confirmed', 2]])
    expect([...(await delivered(next[0]!, later))]).to.deep.equal([])
    expect([...(await delivered(again[0]!, later))]).to.deep.equal([again[0]!.id])
  })
  it('an endpoint scoped to payees or networks is told only of their payments; an unscoped one of every payment', async () => {
    const outbox = makePgWebhookOutbox(pool)
    const [payee, other] = [hex(3, 20), hex(9, 20)]
    const mine = await insertRow(db.knex)
    await move(db.knex, mine, { state: 'submitted' })
    const now = new Date()
    const until = new Date(now.getTime() + 10_000)
    const endpoints = [
      { id: 'all', events: ['pending'], room: 0 },
      { id: 'payee', events: ['pending'], room: 0, payees: [payee] },
      { id: 'elsewhere', events: ['pending'], room: 0, payees: [other] },
      { id: 'network', events: ['pending'], room: 0, networks: ['base-sepolia'] },
      { id: 'other-network', events: ['pending'], room: 0, networks: ['eip155:1'] },
    ]
    while ((await outbox.fanOut(endpoints, now, 100, until)).fanned > 0);
    const told = async (endpoint: string) =>
      (await outbox.lease(endpoint, now, until, 100)).filter((d) => d.event.settlement.id === mine).length
    expect(await Promise.all(endpoints.map((e) => told(e.id)))).to.deep.equal([1, 1, 0, 1, 0])
  })
})
