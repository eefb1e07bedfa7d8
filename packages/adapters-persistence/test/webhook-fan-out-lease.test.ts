import type { AttemptOutcome, LeasedDelivery } from '@x402-facilitator/domain'
import { waitFor } from '@x402-facilitator/domain/test-support'
import { expect } from 'chai'
import type { Knex } from 'knex'
import { createPgPool, type PgPool } from '../src/database/create-pg-pool.js'
import { makePgWebhookOutbox } from '../src/webhooks/pg-webhook-outbox.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, '0')}`
let nonces = 0

/** A payment claimed, then moved through `states` (each move one event: pending, confirmed, final). */
const payment = async (knex: Knex, ...states: string[]): Promise<string> => {
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
  for (const state of states) await move(knex, id, state)
  return id
}

const move = (knex: Knex, id: string, state: string) =>
  knex('settlements')
    .where({ id })
    .update(state === 'confirmed' ? { state, block_hash: hex(Number(id), 32), gas_used: '1' } : { state })

const delivered = (delivery: LeasedDelivery, now: Date): AttemptOutcome => ({
  delivery,
  now,
  delivered: true,
  status: 204,
  error: null,
  retryAt: null,
})
const pairs = (deliveries: ReadonlyArray<LeasedDelivery>) =>
  deliveries.map((d) => [d.endpoint, d.settlementId, d.event.kind, d.attempts])

/** docs/ARCHITECTURE.md §5.9: fan-out writes a delivery already leased when it may be sent at once. */
describe('webhook fan-out leasing at once (migration 0012)', () => {
  let db: TestDatabase
  let pool: PgPool
  beforeEach(async () => {
    db = await createTestDatabase()
    pool = createPgPool({ connectionString: db.connectionString, timeoutMs: 10_000 })
  })
  afterEach(async () => {
    await pool?.end()
    await db?.drop()
  })

  it('leases only the oldest new delivery of each (endpoint, payment) with none pending, within room', async () => {
    const outbox = makePgWebhookOutbox(pool)
    const a = await payment(db.knex, 'submitted', 'confirmed')
    const b = await payment(db.knex, 'submitted')
    const now = new Date()
    const until = new Date(now.getTime() + 10_000)
    const endpoints = [
      { id: 'narrow', events: [], room: 1 },
      { id: 'wide', events: [], room: 5 },
    ]
    const first = await outbox.fanOut(endpoints, now, 100, until)
    expect(first.fanned).to.equal(3)
    expect(pairs(first.leased)).to.deep.equal([
      ['narrow', a, 'pending', 1],
      ['wide', a, 'pending', 1],
      ['wide', b, 'pending', 1],
    ])
    expect(first.waiting).to.have.deep.members([
      { endpoint: 'narrow', settlementId: a },
      { endpoint: 'narrow', settlementId: b },
      { endpoint: 'wide', settlementId: a },
    ])
    // What fan-out leased is held: `lease` finds only what it left, and of a payment only its oldest.
    expect(pairs(await outbox.lease('wide', now, until, 10))).to.deep.equal([])
    expect(pairs(await outbox.lease('narrow', now, until, 10))).to.deep.equal([['narrow', b, 'pending', 1]])

    const wideA = first.leased.find((d) => d.endpoint === 'wide' && d.settlementId === a)!
    expect([...(await outbox.record([delivered(wideA, now)]))]).to.deep.equal([wideA.id])
    // A's confirmed delivery to `wide` is now due but not leased: a new event of A waits behind it.
    await move(db.knex, a, 'final')
    const second = await outbox.fanOut(endpoints, now, 100, until)
    expect(pairs(second.leased)).to.deep.equal([])
    expect(second.waiting).to.have.deep.members([
      { endpoint: 'narrow', settlementId: a },
      { endpoint: 'wide', settlementId: a },
    ])
    expect(pairs(await outbox.lease('wide', now, until, 10))).to.deep.equal([['wide', a, 'confirmed', 1]])
    expect((await outbox.fanOut(endpoints, now, 100, until)).fanned).to.equal(0)
  })

  it('leases nothing at once when another fan-out committed after its snapshot was taken', async () => {
    const outbox = makePgWebhookOutbox(pool)
    const c = await payment(db.knex, 'submitted')
    const now = new Date()
    const until = new Date(now.getTime() + 10_000)
    // Another replica's fan-out, as the epoch sees it: counted up, committed once this one's snapshot is taken.
    const other = await db.knex.transaction()
    await other.raw('update webhook_fan_out_epoch set n = n + 1')
    const fanning = outbox.fanOut([{ id: 'e', events: [], room: 5 }], now, 100, until)
    await waitFor('the fan-out waiting for the epoch row', async () => {
      const { rows } = await db.knex.raw("select 1 from pg_stat_activity where wait_event_type = 'Lock'")
      return rows.length > 0 ? true : undefined
    })
    await other.commit()
    const fanned = await fanning
    expect(fanned.fanned).to.equal(1)
    expect(pairs(fanned.leased)).to.deep.equal([])
    expect(fanned.waiting).to.deep.equal([{ endpoint: 'e', settlementId: c }])
    expect(pairs(await outbox.lease('e', now, until, 10))).to.deep.equal([['e', c, 'pending', 1]])
  })
})
