import pg from 'pg'
import { advisoryLockKey } from '../replicas/advisory-lock.js'

/**
 * The indexes of migrations 0007 (`chain_id`, docs/ARCHITECTURE.md §5, "Networks") and 0008 (`nonce_space`, "Nonce
 * spaces"): built with `create index concurrently`, which a migration's transaction cannot run, so that replicas of the
 * previous release keep writing while a big table is indexed. 0007's each mirror an index of the same rows keyed
 * without the chain; the last serves recovery's judging of released rows (docs/ARCHITECTURE.md §5.5). In order: a
 * Permit2 claim names the nonce-space key as its `on conflict` target, which Postgres refuses (so the claim answers
 * unavailable) until that index is valid; built after the sponsored permits' key, it is valid only once that one is
 * too.
 */
export const journalIndexes: ReadonlyArray<{ readonly name: string; readonly definition: string }> = [
  { name: 'settlements_chain_key_idx', definition: 'unique index on settlements (chain_id, asset, payer, nonce)' },
  {
    name: 'settlements_chain_confirmed_idx',
    definition: `index on settlements (chain_id, owner, block_number) where state = 'confirmed'`,
  },
  {
    name: 'settlements_chain_final_idx',
    definition: `index on settlements (chain_id, owner, block_number) where state = 'final'`,
  },
  {
    name: 'settlements_chain_ended_watched_idx',
    definition:
      'index on settlements (chain_id, owner, block_number) ' +
      `where state in ('reverted', 'cancelled', 'released') and block_hash is not null and watch_ended_at is null`,
  },
  {
    // A sponsored EIP-2612 permit (token, owner, token nonce) is held by one row at a time: it may be spent once. A
    // released row sent nothing that stands, a waived one nothing at all: neither holds it.
    name: 'settlements_chain_sponsored_permit_idx',
    definition:
      `unique index on settlements (chain_id, asset, payer, (permit2 #>> '{sponsored_permit,nonce}')) ` +
      `where permit2 -> 'sponsored_permit' is not null and state not in ('released', 'waived')`,
  },
  {
    name: 'settlements_chain_nonce_space_key_idx',
    definition: 'unique index on settlements (chain_id, nonce_space, payer, nonce)',
  },
  {
    // Recovery's look for released rows to judge (journal-released-sql.ts), every pass of every lane: 300,000 rows,
    // one in 1,000 released unjudged, 0.49 s a look without it, 5.6 ms with it (EXPLAIN ANALYZE, medians of 7).
    name: 'settlements_chain_released_unjudged_idx',
    definition:
      'index on settlements (chain_id, asset) ' +
      `where state = 'released' and block_hash is null and watch_ended_at is null`,
  },
  {
    // One log of another party's transaction pays one payment (migration 0014, docs/ARCHITECTURE.md §5.5).
    name: 'settlements_chain_payment_log_idx',
    definition:
      'unique index on settlements (chain_id, tx_hash, payment_log_index) where payment_log_index is not null',
  },
]

const indexLockKey = advisoryLockKey('x402-facilitator/journal-indexes')

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export interface JournalIndexesOptions {
  readonly connectTimeoutMs?: number
  /** One line per index built, for a person watching. */
  readonly progress?: (line: string) => void
}

/**
 * Builds each missing index concurrently, and drops and builds again one a failed build left invalid. Idempotent.
 * Replicas take turns through an advisory lock, tried and retried rather than waited for: a session waiting inside a
 * statement holds a snapshot, which the other's concurrent build would wait for in turn.
 */
export const ensureJournalIndexes = async (
  connectionString: string,
  options: JournalIndexesOptions = {},
): Promise<ReadonlyArray<string>> => {
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    application_name: 'x402-facilitator index build',
  })
  client.on('error', () => undefined)
  await client.connect()
  try {
    // A build reads the whole table: no statement bound.
    await client.query('set statement_timeout = 0')
    for (let attempt = 0; ; attempt++) {
      const locked = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [
        indexLockKey,
      ])
      if (locked.rows[0]?.ok === true) break
      if (attempt === 0) options.progress?.("waiting for another replica building the journal's indexes…")
      await sleep(Math.min(1_000, 25 * 2 ** Math.min(attempt, 6)))
    }
    const built: string[] = []
    for (const { name, definition } of journalIndexes) {
      const found = await client.query<{ valid: boolean }>(
        `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
         where c.relname = $1 and c.relnamespace = current_schema()::regnamespace`,
        [name],
      )
      const valid = found.rows[0]?.valid
      if (valid === true) continue
      if (valid === false) await client.query(`drop index concurrently if exists ${name}`)
      options.progress?.(`building index ${name} concurrently…`)
      await client.query(`create ${definition.replace(/index on/, `index concurrently if not exists ${name} on`)}`)
      built.push(name)
    }
    await client.query('select pg_advisory_unlock($1::bigint)', [indexLockKey])
    return built
  } finally {
    await client.end().catch(() => undefined)
  }
}
