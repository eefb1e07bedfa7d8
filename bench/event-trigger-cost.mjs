#!/usr/bin/env node
// What recording settlement events (docs/ARCHITECTURE.md §5.9) costs Postgres per settle, measured by the backend's
// own CPU time (/proc/<pid>/schedstat, ns) rather than the wall clock of a shared machine. Run after `npm run build`:
//   node bench/event-trigger-cost.mjs [--payments 2000] [--batch 20] [--rounds 7]
// Each variant has a database of its own (every migration applied, then the variant's SQL); each round runs every
// variant, in a rotated order, over the same work: payments inserted as `claimed` and moved claimed → submitted →
// confirmed → final by multi-row statements of `--batch` rows, shaped as the journal's per-tick statements.
import { parseArgs } from 'node:util'
import { readFile } from 'node:fs/promises'
import pg from 'pg'
import { createTestDatabase, startEmbeddedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import {
  FIELDS_0009,
  recordEventFunction,
} from '../packages/adapters-persistence/dist/src/migrations/0009-settlement-events.js'
import { recordEventsSql } from '../packages/adapters-persistence/dist/src/migrations/0010-event-receipt-fields.js'

const { values: options } = parseArgs({
  options: {
    payments: { type: 'string', default: '2000' },
    batch: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '7' },
  },
})
const payments = Number(options.payments)
const batch = Number(options.batch)
const rounds = Number(options.rounds)

/** 0010's fields before it recorded by statement: 0009's plpgsql assignment, then a receipt's. */
const FIELDS_0010 = `${FIELDS_0009}    fields := fields || jsonb_build_object('scheme',
      coalesce(new.permit2->>'scheme', 'exact'),
      'transferMethod', case when new.permit2 is null then 'eip3009' else 'permit2' end,
      'maxAmount', coalesce(new.permit2->>'permitted', new.value::text));
`
const rowTrigger = `create trigger settlements_record_event after insert or update of state, block_hash on settlements
  for each row execute function settlements_record_event()`
const dropTriggers = `drop trigger if exists settlements_record_event on settlements;
  drop trigger if exists settlements_record_inserted_events on settlements;
  drop trigger if exists settlements_record_updated_events on settlements`
const dropUnique = 'alter table settlement_events drop constraint if exists settlement_events_event_id_key'
const rowLevel = `${dropTriggers}; ${recordEventFunction('create or replace', FIELDS_0010)}; ${rowTrigger}`
const statementSql = recordEventsSql.join(';\n').replace('create function', 'create or replace function')
const statementLevel = `${dropTriggers}; ${statementSql}`

/** Each variant: the SQL that makes it from a migrated database. */
const variants = {
  'row trigger (0010 as released to main)': rowLevel,
  'row trigger, 0009 fields only': `${dropTriggers}; ${recordEventFunction('create or replace', FIELDS_0009)};
    ${rowTrigger}`,
  'row trigger, no unique event_id': `${rowLevel}; ${dropUnique}`,
  'row trigger, no unique, no unfanned idx': `${rowLevel}; ${dropUnique}; drop index settlement_events_unfanned_idx`,
  'statement triggers (transition tables)': statementLevel,
  'statement triggers, no unique event_id': `${statementLevel}; ${dropUnique}`,
  'no trigger (no event recorded)': dropTriggers,
}

const hex = (n, width) => `0x${n.toString(16).padStart(width, '0')}`
const address = (n) => hex(n, 40)

const insertClaimed = `
insert into settlements (network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements,
  state, owner, chain_id, nonce_space)
select 'eip155:84532', $1, '0x' || lpad(to_hex(g), 40, '0'), '0x' || lpad(to_hex(g), 64, '0'), $2, 1000, 0,
  99999999999, '0x00', '{}'::jsonb, 'claimed', $2, '84532', $1
from generate_series($3::int, $4::int) g
returning id`
const markSubmitted = `
update settlements s set state = 'submitted', tx_hash = v.tx_hash, updated_at = now()
from unnest($1::bigint[], $2::text[]) as v(id, tx_hash) where s.id = v.id and s.state = 'claimed'`
const markMined = `
update settlements s set state = 'confirmed', tx_hash = v.tx_hash, block_number = v.block_number,
  block_hash = v.block_hash, gas_used = 50000, updated_at = now()
from unnest($1::bigint[], $2::text[], $3::numeric[], $4::text[]) as v(id, tx_hash, block_number, block_hash)
where s.id = v.id and s.state = 'submitted'`
const markFinal = `
update settlements s set state = 'final', updated_at = now()
from unnest($1::numeric[], $2::text[]) as v(block_number, block_hash)
where s.state = 'confirmed' and s.block_number = v.block_number and s.block_hash = v.block_hash`

const IDLE_STATEMENTS = 500

/** The backend's CPU time so far, in ns (schedstat's first field: time spent on a CPU). */
const cpuNs = async (pid) => BigInt((await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ')[0])

const runRound = async (client, pid, round) => {
  await client.query('truncate settlements, settlement_events, webhook_deliveries cascade')
  await client.query('vacuum analyze settlements, settlement_events')
  let spent = 0n
  const timed = async (text, values) => {
    const before = await cpuNs(pid)
    const result = await client.query(text, values)
    spent += (await cpuNs(pid)) - before
    return result
  }
  for (let first = 0; first < payments; first += batch) {
    const start = round * payments + first + 1
    const { rows } = await timed(insertClaimed, [address(1), address(2), start, start + batch - 1])
    const ids = rows.map((row) => row.id)
    const txs = ids.map((id) => hex(Number(id), 64))
    const block = [String(start)]
    const blockHash = [hex(start + 7, 64)]
    await timed(markSubmitted, [ids, txs])
    await timed(markMined, [ids, txs, ids.map(() => block[0]), ids.map(() => blockHash[0])])
    await timed(markFinal, [block, blockHash])
  }
  const { rows } = await client.query('select count(*)::int as events from settlement_events')
  // A tick's statement moving no row (markFinal at a head with nothing to finalise): a statement trigger still runs.
  const lifecycle = spent
  for (let k = 0; k < IDLE_STATEMENTS; k++) await timed(markFinal, [['1'], [hex(1, 64)]])
  return { ns: Number(lifecycle), idleNs: Number(spent - lifecycle), events: rows[0].events }
}

const server = await startEmbeddedPostgres({ dataDir: `/tmp/event-trigger-cost-${process.pid}` })
process.env.TEST_DATABASE_URL = server.connectionString
const names = Object.keys(variants)
const sessions = []
for (const name of names) {
  const database = await createTestDatabase()
  const client = new pg.Client({ connectionString: database.connectionString })
  await client.connect()
  await client.query(variants[name])
  // A commit's WAL flush is not the trigger's work, and its wait makes the figures noisier.
  await client.query('set synchronous_commit = off')
  const { rows } = await client.query('select pg_backend_pid() as pid')
  sessions.push({ name, database, client, pid: rows[0].pid, samples: [], idle: [], events: 0 })
}
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < sessions.length; k++) {
    const session = sessions[(k + round) % sessions.length]
    const { ns, idleNs, events } = await runRound(session.client, session.pid, round)
    if (round > 0) session.samples.push(ns / payments / 1000) // round 0 warms caches and plans
    if (round > 0) session.idle.push(idleNs / IDLE_STATEMENTS / 1000)
    session.events = events
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const base = median(sessions.at(-1).samples)
console.log(`${payments} payments a round, ${batch} rows a statement, ${rounds - 1} rounds measured (median)`)
console.log('variant'.padEnd(44), 'µs/payment', ' min–max    ', 'events', 'µs/transition over none')
for (const s of sessions) {
  const m = median(s.samples)
  const range = `${Math.min(...s.samples).toFixed(0)}–${Math.max(...s.samples).toFixed(0)}`
  const perTransition = ((m - base) * payments) / Math.max(s.events, 1)
  console.log(
    s.name.padEnd(44),
    m.toFixed(1).padStart(10),
    ` ${range.padEnd(12)}`,
    String(s.events).padStart(6),
    s.events === 0 ? '' : perTransition.toFixed(1).padStart(10),
    ` ×${(m / base).toFixed(2)}`,
    ` idle statement ${median(s.idle).toFixed(1)} µs`,
  )
}
for (const s of sessions) {
  await s.client.end()
  await s.database.drop()
}
await server.stop()
