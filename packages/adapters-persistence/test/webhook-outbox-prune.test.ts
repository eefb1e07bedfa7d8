import { waitFor } from '@x402-facilitator/domain/test-support'
import { expect } from 'chai'
import { createPgPool, type PgPool } from '../src/database/create-pg-pool.js'
import { makePgWebhookOutbox } from '../src/webhooks/pg-webhook-outbox.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const HOUR = 3_600_000

/** docs/ARCHITECTURE.md §5.9: ended deliveries are deleted a while after they ended, then their events. */
describe('webhook outbox pruning', () => {
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

  it('deletes deliveries ended before the bound, then their events; keeps what is pending or ended since', async () => {
    const now = Date.now()
    const at = (hoursAgo: number) => new Date(now - hoursAgo * HOUR)
    const event = async (hoursAgo: number): Promise<string> => {
      const [row] = await db
        .knex('settlement_events')
        .insert({
          settlement_id: 1,
          kind: 'final',
          to_state: 'final',
          settlement: {},
          fanned_out: true,
          created_at: at(hoursAgo),
        })
        .returning('id')
      return String((row as { id: string }).id)
    }
    const delivery = (eventSeq: string, endpoint: string, state: string, endedHoursAgo: number | null) =>
      db.knex('webhook_deliveries').insert({
        event_seq: eventSeq,
        settlement_id: 1,
        endpoint,
        state,
        next_attempt_at: at(10),
        created_at: at(10),
        ended_at: endedHoursAgo === null ? null : at(endedHoursAgo),
      })
    const old = await event(10)
    await delivery(old, 'a', 'delivered', 9)
    await delivery(old, 'b', 'dead', 8)
    // Its event as old, but ended since the bound: kept, and its event with it.
    const recent = await event(10)
    await delivery(recent, 'a', 'delivered', 9)
    await delivery(recent, 'b', 'delivered', 1)
    const pending = await event(10)
    await delivery(pending, 'a', 'pending', null)
    const unsubscribed = await event(10)
    const young = await event(1)

    const outbox = makePgWebhookOutbox(pool)
    const bound = at(5)
    await outbox.prune(bound)
    await outbox.prune(bound)
    const deliveries = await db
      .knex('webhook_deliveries')
      .orderBy(['event_seq', 'endpoint'])
      .select('event_seq', 'endpoint')
    expect(deliveries.map((d) => [String(d.event_seq), d.endpoint])).to.deep.equal([
      [recent, 'b'],
      [pending, 'a'],
    ])
    const events = (await db.knex('settlement_events').orderBy('id').select('id')).map((e) => String(e.id))
    expect(events).to.deep.equal([recent, pending, young])
    expect(events).not.to.include(unsubscribed)
    expect(events).not.to.include(old)
  })

  it('deletes no event when a fan-out committed after its snapshot was taken (its new deliveries unseen)', async () => {
    const old = new Date(Date.now() - 10 * HOUR)
    await db.knex('settlement_events').insert({
      settlement_id: 2,
      kind: 'pending',
      to_state: 'submitted',
      settlement: {},
      created_at: old,
    })
    // Another replica's fan-out, as the epoch sees it: counted up, committed once the prune's snapshot is taken.
    const other = await db.knex.transaction()
    await other.raw('update webhook_fan_out_epoch set n = n + 1')
    const pruning = makePgWebhookOutbox(pool).prune(new Date(Date.now() - 5 * HOUR))
    await waitFor('the prune waiting for the epoch row', async () => {
      const { rows } = await db.knex.raw("select 1 from pg_stat_activity where wait_event_type = 'Lock'")
      return rows.length > 0 ? true : undefined
    })
    await other.commit()
    await pruning
    expect(await db.knex('settlement_events').where({ settlement_id: 2 }).select('id')).to.have.length(1)
    await makePgWebhookOutbox(pool).prune(new Date(Date.now() - 5 * HOUR))
    expect(await db.knex('settlement_events').where({ settlement_id: 2 }).select('id')).to.have.length(0)
  })
})
