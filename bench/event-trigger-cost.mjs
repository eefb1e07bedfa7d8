#!/usr/bin/env node
// What recording settlement events (docs/ARCHITECTURE.md §5.9) costs Postgres per settle, measured by the backend's
// own CPU time (/proc/<pid>/schedstat, ns) rather than the wall clock of a shared machine. Run after `npm run build`:
//   node bench/event-trigger-cost.mjs [--payments 1000] [--batch 20] [--rounds 9] [--only main,statement]
// Each variant has a database of its own (every migration applied, then the variant's SQL); each round runs every
// variant, in a rotated order, over the same work: payments inserted as `claimed` and moved claimed → submitted →
// confirmed → final by multi-row statements of `--batch` rows, shaped as the journal's per-tick statements.
import { parseArgs } from 'node:util'
import { readFile, rm } from 'node:fs/promises'
import pg from 'pg'
import { createTestDatabase, startEmbeddedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import {
  FIELDS_0009,
  recordEventFunction,
} from '../packages/adapters-persistence/dist/src/migrations/0009-settlement-events.js'
import { recordEventsSql } from './lib/event-statement-triggers.mjs'

const { values: options } = parseArgs({
  options: {
    only: { type: 'string' },
    payments: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '9' },
  },
})
const payments = Number(options.payments)
const batch = Number(options.batch)
const rounds = Number(options.rounds)

/** 0010's fields as on main before this bench: 0009's plpgsql assignment, then a receipt's added with `||`. */
const FIELDS_0010_ON_MAIN = `${FIELDS_0009}    fields := fields || jsonb_build_object('scheme',
      coalesce(new.permit2->>'scheme', 'exact'),
      'transferMethod', case when new.permit2 is null then 'eip3009' else 'permit2' end,
      'maxAmount', coalesce(new.permit2->>'permitted', new.value::text));
`
const dropTriggers = `drop trigger if exists settlements_record_event on settlements;
  drop trigger if exists settlements_record_waived_event on settlements;
  drop trigger if exists settlements_record_inserted_events on settlements;
  drop trigger if exists settlements_record_updated_events on settlements`
/** 0009's trigger: every insert, and every update naming the state or the block hash, enters plpgsql. */
const trigger0009 = `${dropTriggers};
  create trigger settlements_record_event after insert or update of state, block_hash on settlements
  for each row execute function settlements_record_event()`
const withFields = (fields) => recordEventFunction('create or replace', fields)
const addUnique = 'alter table settlement_events add constraint settlement_events_event_id_key unique (event_id)'
const dropUnfanned = 'drop index settlement_events_unfanned_idx'

/** Each variant: the SQL that makes it from a database migrated to 0010. */
const variants = {
  'main: row trigger, fields built twice': `${withFields(FIELDS_0010_ON_MAIN)}; ${trigger0009}; ${addUnique}`,
  'fields built once, when clauses': addUnique,
  '+ no unique event_id (migration 0010)': 'select 1',
  '+ no unfanned index (fan-out needs it)': dropUnfanned,
  'statement triggers (transition tables)': `${dropTriggers}; ${recordEventsSql.join(';\n')}; ${addUnique}`,
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

const IDLE_STATEMENTS = 200

/** The backend's CPU time so far, in ns (schedstat's first field: time spent on a CPU). */
const cpuNs = async (pid) => BigInt((await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ')[0])

/** Runs `text` on the session's backend, adding the CPU it took there to `session.spent`. */
const timed = async (session, text, values) => {
  const before = await cpuNs(session.pid)
  const result = await session.client.query(text, values)
  session.spent += (await cpuNs(session.pid)) - before
  return result
}

/** One batch's life cycle: `batch` claims inserted, then claimed → submitted → confirmed → final. */
const runBatch = async (session, start) => {
  const { rows } = await timed(session, insertClaimed, [address(1), address(2), start, start + batch - 1])
  const ids = rows.map((row) => row.id)
  const txs = ids.map((id) => hex(Number(id), 64))
  const block = String(start)
  const blockHash = hex(start + 7, 64)
  await timed(session, markSubmitted, [ids, txs])
  await timed(session, markMined, [ids, txs, ids.map(() => block), ids.map(() => blockHash)])
  await timed(session, markFinal, [[block], [blockHash]])
}

/** Every variant, batch by batch in a rotated order: a busy machine's drift falls on each alike. */
const runRound = async (sessions, round) => {
  for (const session of sessions) {
    await session.client.query('truncate settlements, settlement_events, webhook_deliveries cascade')
    await session.client.query('vacuum analyze settlements, settlement_events')
    session.spent = 0n
  }
  const rotated = (k) => sessions.map((_, i) => sessions[(i + k) % sessions.length])
  for (let first = 0; first < payments; first += batch) {
    for (const session of rotated(first / batch)) await runBatch(session, round * payments + first + 1)
  }
  const lifecycle = sessions.map((session) => session.spent)
  // A tick's statement moving no row (markFinal at a head with nothing to finalise): a statement trigger still runs.
  for (let k = 0; k < IDLE_STATEMENTS; k++) {
    for (const session of rotated(k)) await timed(session, markFinal, [['1'], [hex(1, 64)]])
  }
  for (const [i, session] of sessions.entries()) {
    const { rows } = await session.client.query('select count(*)::int as events from settlement_events')
    session.events = rows[0].events
    if (round === 0) continue // warms caches and plans
    session.samples.push(Number(lifecycle[i]) / payments / 1000)
    session.idle.push(Number(session.spent - lifecycle[i]) / IDLE_STATEMENTS / 1000)
  }
}

const dataDir = `/tmp/event-trigger-cost-${process.pid}`
const server = await startEmbeddedPostgres({ dataDir })
process.env.TEST_DATABASE_URL = server.connectionString
// --only a,b: the variants whose names contain one of those (the no-trigger run is always kept, to compare with).
const names = Object.keys(variants).filter(
  (name) =>
    options.only === undefined ||
    name === 'no trigger (no event recorded)' ||
    options.only.split(',').some((part) => name.includes(part)),
)
const sessions = []
for (const name of names) {
  const database = await createTestDatabase()
  const client = new pg.Client({ connectionString: database.connectionString })
  await client.connect()
  await client.query(variants[name])
  // A commit's WAL flush is not the trigger's work, and its wait makes the figures noisier.
  await client.query('set synchronous_commit = off')
  const { rows } = await client.query('select pg_backend_pid() as pid')
  sessions.push({ name, database, client, pid: rows[0].pid, samples: [], idle: [], events: 0, spent: 0n })
}
for (let round = 0; round < rounds; round++) await runRound(sessions, round)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const none = sessions.at(-1)
const transitions = sessions[0].events / payments
console.log(`${payments} payments a round (${transitions} events each with a trigger), ${batch} rows a statement,`)
console.log(`${rounds - 1} rounds measured; medians; "over none": paired with the same round's no-trigger run`)
console.log(
  'variant'.padEnd(42),
  'µs/payment  min–max   over none: µs/payment µs/transition  ratio  statement moving no row',
)
for (const s of sessions) {
  const over = median(s.samples.map((x, r) => x - none.samples[r]))
  const ratio = median(s.samples.map((x, r) => x / none.samples[r]))
  const range = `${Math.min(...s.samples).toFixed(0)}–${Math.max(...s.samples).toFixed(0)}`
  console.log(
    s.name.padEnd(42),
    median(s.samples).toFixed(1).padStart(10),
    ` ${range.padEnd(9)}`,
    over.toFixed(1).padStart(10),
    (over / transitions).toFixed(1).padStart(13),
    `  ×${ratio.toFixed(3)}`,
    `${median(s.idle).toFixed(1).padStart(8)} µs`,
  )
}
for (const s of sessions) {
  await s.client.end()
  await s.database.drop()
}
await server.stop()
await rm(dataDir, { recursive: true, force: true })
