import { expect } from 'chai'
import type { Knex } from 'knex'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, '0')}`
let nonces = 100

const insertRows = async (knex: Knex, count: number, state = 'claimed'): Promise<string[]> => {
  const rows = Array.from({ length: count }, () => ({
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
  }))
  return (await knex('settlements').insert(rows).returning('id')).map((row: { id: string }) => String(row.id))
}

/** One multi-row statement, as the journal's per-tick statements are: each id's row takes `state` and its block. */
const moveAll = (knex: Knex, ids: string[], state: string, block: number | null) =>
  knex.raw(
    `update settlements s set state = ?, block_number = ?::numeric, block_hash = ?, gas_used = 50000,
       tx_hash = coalesce(s.tx_hash, ?)
     from unnest(?::bigint[]) as v(id) where s.id = v.id`,
    [state, block, block === null ? null : hex(block, 32), hex(9, 32), ids],
  )

interface Event {
  readonly id: string
  readonly settlement_id: string
  readonly event_id: string
  readonly kind: string
  readonly from_state: string | null
  readonly to_state: string
  readonly settlement: Record<string, unknown>
}

/**
 * docs/ARCHITECTURE.md §5.9: the events of multi-row statements, as the journal's per-tick statements make them; since
 * migration 0010 the trigger's function is entered only for a change that may be an event.
 */
describe('settlement events of multi-row statements (migration 0010)', () => {
  let db: TestDatabase
  before(async () => (db = await createTestDatabase()))
  after(async () => await db?.drop())
  const eventsOf = async (ids: string[]): Promise<Event[]> =>
    db.knex('settlement_events').whereIn('settlement_id', ids).orderBy('id').select('*')
  const kindsOf = (events: Event[], id: string) => events.filter((e) => e.settlement_id === id).map((e) => e.kind)

  it("records each row's events of one statement, each payment's in order, with the row's fields", async () => {
    const { knex } = db
    const ids = await insertRows(knex, 3)
    await moveAll(knex, ids, 'submitted', null)
    await moveAll(knex, ids, 'confirmed', 5)
    await moveAll(knex, ids, 'final', 5)
    // markMinedAgain from final for two rows at once: each row's reorg, then its settling again.
    await moveAll(knex, ids.slice(0, 2), 'confirmed', 6)
    const events = await eventsOf(ids)
    for (const id of ids.slice(0, 2)) {
      expect(kindsOf(events, id)).to.deep.equal(['pending', 'confirmed', 'final', 'reorged', 'settled_again'])
    }
    expect(kindsOf(events, ids[2]!)).to.deep.equal(['pending', 'confirmed', 'final'])
    const again = events.filter((e) => e.settlement_id === ids[0] && e.kind === 'settled_again')[0]!
    expect(again).to.include({ from_state: 'final', to_state: 'confirmed' })
    expect(again.settlement).to.deep.equal({
      id: ids[0],
      network: 'base-sepolia',
      chainId: null,
      asset: hex(1, 20),
      payer: hex(2, 20),
      payee: hex(3, 20),
      nonce: hex(101, 32),
      value: '1000',
      state: 'confirmed',
      transaction: hex(9, 32),
      blockNumber: '6',
      blockHash: hex(6, 32),
      note: null,
      scheme: 'exact',
      transferMethod: 'eip3009',
      maxAmount: '1000',
    })
    expect(new Set(events.map((e) => e.event_id)).size).to.equal(events.length)
    for (const e of events) expect(e.event_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-/)
  })

  it('records nothing for a statement that moves no state, and a waived event per waived row inserted', async () => {
    const { knex } = db
    const ids = await insertRows(knex, 2)
    await knex('settlements')
      .whereIn('id', ids)
      .update({ updated_at: knex.fn.now(), tx_hash: hex(8, 32) })
    await moveAll(knex, [], 'submitted', null)
    expect(await eventsOf(ids)).to.deep.equal([])
    const waived = await insertRows(knex, 2, 'waived')
    expect((await eventsOf(waived)).map((e) => [e.settlement_id, e.kind, e.from_state])).to.deep.equal([
      [waived[0], 'waived', null],
      [waived[1], 'waived', null],
    ])
  })

  it('enters the trigger function only for a change that may be an event', async () => {
    const calls = await db.knex.transaction(async (trx) => {
      await trx.raw("set local track_functions = 'pl'")
      const called = async () =>
        Number(
          (await trx.raw("select pg_stat_get_xact_function_calls('settlements_record_event'::regproc) as n")).rows[0]
            .n ?? 0,
        )
      const ids = await insertRows(trx, 3)
      const afterClaims = await called()
      await moveAll(trx, ids, 'claimed', null)
      await trx('settlements').whereIn('id', ids).update({ updated_at: trx.fn.now() })
      const afterNoMove = await called()
      await moveAll(trx, ids, 'submitted', null)
      return [afterClaims, afterNoMove, await called()]
    })
    expect(calls).to.deep.equal([0, 0, 3])
  })

  it('keeps no index on event ids: nothing looks one up, and gen_random_uuid() makes them unique', async () => {
    const { rows } = await db.knex.raw(
      `select count(*)::int as n from pg_index i join pg_attribute a on a.attrelid = i.indrelid
       where i.indrelid = 'settlement_events'::regclass and a.attname = 'event_id' and a.attnum = any(i.indkey)`,
    )
    expect(rows[0].n).to.equal(0)
  })
})
