#!/usr/bin/env node
// What the webhook outbox (docs/ARCHITECTURE.md §5.9) costs per delivered event with one endpoint: Postgres' CPU, read
// from its backends' /proc/<pid>/schedstat, and the client's (process.cpuUsage), for the real `makePgWebhookOutbox`
// cycle of the delivery worker: record (what the last pass sent, delivered) → fan-out → lease (when its `LeaseNeed`
// wants one, passes 50 ms apart). Run after a build:
//   node bench/outbox-cost.mjs [--payments 600] [--per-pass 8] [--rounds 21] [--kept 30000] [--schema SQL]
//     [--before DIR] [--try DIR]...
// Events are made as the journal makes them, by the trigger: each pass `--per-pass` payments go claimed → submitted
// (pending), the previous pass's are mined (confirmed) and those of the pass before finalised (final): 3 events a
// payment, about 3 × per-pass deliveries a pass. Variants, each on a database of its own, take turns pass by pass:
// the outbox as built; with --schema, the same after that SQL; with --try DIR, DIR/pg-webhook-outbox.js (a copy of
// dist/src/pg-webhook-outbox.js and webhook-outbox-sql.js, edited) after --schema; with --before DIR, such a copy of
// a build before migration 0012 (its lease run every pass) on a database with 0012 undone (`undo0012` below).
import { parseArgs } from 'node:util'
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { createTestDatabase, startEmbeddedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import { LeaseNeed } from '../packages/app/dist/src/webhooks/lease-need.js'

const { values: options } = parseArgs({
  options: {
    payments: { type: 'string', default: '600' },
    kept: { type: 'string', default: '30000' },
    'per-pass': { type: 'string', default: '8' },
    rounds: { type: 'string', default: '21' },
    schema: { type: 'string' },
    before: { type: 'string' },
    try: { type: 'string', multiple: true, default: [] },
  },
})
const payments = Number(options.payments)
const perPass = Number(options['per-pass'])
const rounds = Number(options.rounds)
const ENDPOINT = { id: 'http://127.0.0.1:9/hook', events: [] }
const ROOM = 64
const LEASE_MS = 30_000
/** The worker's pace when busy, and its WEBHOOK_POLL_MS: when its `LeaseNeed` wants a lease statement. */
const BUSY_PASS_MS = 50
const POLL_MS = 200

/** What migration 0012 changed, put back as 0010 left it (for a --before build). */
const undo0012 = `drop table webhook_fan_out_epoch; alter table webhook_deliveries add constraint
  webhook_deliveries_event_seq_fkey foreign key (event_seq) references settlement_events (id) on delete cascade`

const variants = [{ name: 'as built', module: '../packages/adapters-persistence/dist/src/pg-webhook-outbox.js' }]
if (options.schema) variants.push({ ...variants[0], name: '+ --schema', sql: options.schema })
for (const dir of options.try) {
  variants.push({ name: `try ${dir}`, module: path.resolve(dir, 'pg-webhook-outbox.js'), sql: options.schema })
}
if (options.before) {
  const module = path.resolve(options.before, 'pg-webhook-outbox.js')
  variants.unshift({ name: `before (${options.before})`, module, sql: undo0012 })
}

const hex = (n, width) => `0x${n.toString(16).padStart(width, '0')}`
const insertClaimed = `
insert into settlements (network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements,
  state, owner, chain_id, nonce_space)
select 'eip155:84532', $1, '0x' || lpad(to_hex(g), 40, '0'), '0x' || lpad(to_hex(g), 64, '0'), $2, 1000, 0,
  99999999999, '0x00', '{}'::jsonb, 'claimed', $2, '84532', $1
from generate_series($3::int, $4::int) g
returning id`
const markSubmitted = `update settlements set state = 'submitted', tx_hash = '0x' || lpad(to_hex(id), 64, '0')
  where id = any($1::bigint[])`
const markMined = `update settlements set state = 'confirmed', block_number = 1,
  block_hash = '0x' || lpad(to_hex(id), 64, '0'), gas_used = 50000 where id = any($1::bigint[])`
const markFinal = `update settlements set state = 'final' where id = any($1::bigint[])`

const cpuNs = async (pid) => BigInt((await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ')[0])
const cpuOf = async (pids) => (await Promise.all(pids.map(cpuNs))).reduce((a, b) => a + b, 0n)
const clientUs = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** One worker pass on `v`'s outbox, its CPU (backends and client) added to `v`'s; the payments' events made first. */
const pass = async (v, stages) => {
  const [fresh, mined, finalised] = stages
  if (fresh.length > 0) await v.journal.query(markSubmitted, [fresh])
  if (mined.length > 0) await v.journal.query(markMined, [mined])
  if (finalised.length > 0) await v.journal.query(markFinal, [finalised])
  const now = new Date()
  const until = new Date(now.getTime() + LEASE_MS)
  const at = [await cpuOf(v.pids)]
  /** A stage's call, its client CPU counted (not the reading of the backends' that follows). */
  const stage = async (call) => {
    const start = clientUs()
    const result = await call()
    v.clientUs += clientUs() - start
    at.push(await cpuOf(v.pids))
    return result
  }
  const outcomes = v.outcomes.splice(0)
  const recorded = await stage(() => v.outbox.record(outcomes))
  for (const { delivery } of outcomes) v.need.ended(delivery)
  const fanned = await stage(() =>
    v.outbox.fanOut([{ ...ENDPOINT, room: v.need.fanOutRoom(ENDPOINT.id, ROOM) }], now, 500, until),
  )
  // An earlier build's fan-out returns a count and leases nothing: every pass leases, as its worker did.
  const early = typeof fanned === 'number' ? [] : fanned.leased
  if (typeof fanned !== 'number') v.need.fannedOut(fanned)
  const leased = [...early]
  v.clockMs += BUSY_PASS_MS
  if (typeof fanned === 'number' || v.need.due()) {
    const room = ROOM - early.length
    leased.push(...(await stage(() => v.outbox.lease(ENDPOINT.id, now, until, room))))
    v.need.leased(ENDPOINT.id, leased.slice(early.length), room)
  } else at.push(at.at(-1))
  for (const delivery of leased) {
    v.outcomes.push({ delivery, now: new Date(), delivered: true, status: 204, error: null, retryAt: null })
  }
  for (let s = 0; s < 3; s++) v.stageNs[s] += at[s + 1] - at[s]
  v.delivered += recorded.size
  return leased.length + recorded.size
}

/** Events delivered earlier and kept (pruned only a week after): the tables' size as a service's, not empty. */
const keptSql = `
with ev as (
  insert into settlement_events (settlement_id, kind, from_state, to_state, settlement, fanned_out, created_at)
  select -g, 'final', 'confirmed', 'final', jsonb_build_object('id', (-g)::text, 'note', repeat('x', 500)), true, now()
  from generate_series(1, $1::int) g returning id, settlement_id
)
insert into webhook_deliveries (event_seq, settlement_id, endpoint, state, attempts, next_attempt_at, created_at,
  delivered_at, ended_at)
select id, settlement_id, $2, 'delivered', 1, now(), now(), now(), now() from ev`

const runRound = async (round) => {
  for (const v of variants) {
    await v.journal.query('vacuum analyze settlements, settlement_events, webhook_deliveries')
    Object.assign(v, { stageNs: [0n, 0n, 0n], clientUs: 0, delivered: 0, passes: 0 })
  }
  const batches = []
  for (let first = 0; first < payments; first += perPass) batches.push([first, Math.min(first + perPass, payments)])
  const ids = new Map()
  for (let k = 0; k < batches.length + 2; k++) {
    for (const [i, v] of variants.entries()) {
      const start = round * payments + (batches[k]?.[0] ?? 0) + 1
      const fresh = []
      if (k < batches.length) {
        const end = start + batches[k][1] - batches[k][0] - 1
        const { rows } = await v.journal.query(insertClaimed, [hex(1, 40), hex(2, 40), start, end])
        fresh.push(...rows.map((r) => r.id))
      }
      ids.set(`${i}/${k}`, fresh)
      await pass(v, [fresh, ids.get(`${i}/${k - 1}`) ?? [], ids.get(`${i}/${k - 2}`) ?? []])
      v.passes++
    }
  }
  for (const v of variants) while ((await pass(v, [[], [], []])) > 0) v.passes++
  for (const v of variants) {
    if (v.delivered !== payments * 3) throw new Error(`${v.name}: ${v.delivered} delivered, not ${payments * 3}`)
    if (round === 0) continue // warms caches and plans
    const perEvent = v.stageNs.map((ns) => Number(ns) / v.delivered / 1000)
    v.backend.push(perEvent.reduce((a, b) => a + b))
    perEvent.forEach((us, s) => v.stages[s].push(us))
    v.client.push(v.clientUs / v.delivered)
  }
}

const dataDir = `/tmp/outbox-cost-${process.pid}`
const server = await startEmbeddedPostgres({ dataDir })
process.env.TEST_DATABASE_URL = server.connectionString
for (const v of variants) {
  v.database = await createTestDatabase()
  v.journal = new pg.Client({ connectionString: v.database.connectionString })
  await v.journal.connect()
  if (v.sql) await v.journal.query(v.sql)
  await v.journal.query(keptSql, [Number(options.kept), ENDPOINT.id])
  // Three connections, as the delivery thread's pool; opened now and kept, so their backends are known.
  v.pool = new pg.Pool({ connectionString: v.database.connectionString, max: 3, idleTimeoutMillis: 0 })
  const clients = await Promise.all([0, 1, 2].map(() => v.pool.connect()))
  v.pids = await Promise.all(clients.map(async (c) => (await c.query('select pg_backend_pid() as pid')).rows[0].pid))
  for (const c of clients) c.release()
  v.outbox = (await import(v.module)).makePgWebhookOutbox(v.pool)
  Object.assign(v, { outcomes: [], backend: [], stages: [[], [], []], client: [], clockMs: 0 })
  v.need = new LeaseNeed(POLL_MS, () => v.clockMs)
}
for (let round = 0; round < rounds; round++) await runRound(round)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`
console.log(
  `${payments} payments a round, 3 events each, one endpoint (every kind), ~${3 * perPass} deliveries a pass;`,
)
console.log(`${rounds - 1} rounds measured; medians (min–max) per delivered event`)
console.log('variant'.padEnd(44), 'Postgres µs   min–max     (record fan-out lease)   client µs   min–max      passes')
for (const v of variants) {
  const cells = [median(v.backend).toFixed(1).padStart(10), range(v.backend).padEnd(12)]
  cells.push(`(${v.stages.map((xs) => median(xs).toFixed(1).padStart(5)).join(' ')})`.padEnd(22))
  cells.push(median(v.client).toFixed(1).padStart(10), range(v.client).padEnd(12), String(v.passes).padStart(6))
  console.log(v.name.padEnd(44), ...cells)
}
for (const v of variants) {
  await v.pool.end()
  await v.journal.end()
  await v.database.drop()
}
await server.stop()
await rm(dataDir, { recursive: true, force: true })
