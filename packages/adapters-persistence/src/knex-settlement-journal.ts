import * as O from 'fp-ts/lib/Option.js'
import type {
  Attempt,
  ClaimRef,
  ClaimResult,
  Hex,
  NewSettlement,
  SettlementJournal,
  SettlementKey,
  TransferReceipt,
  Transition,
} from '@x402-facilitator/domain'
import type { Knex } from 'knex'
import pg from 'pg'
import { defaultJournalTimeoutMs } from './create-knex.js'
import { type SettlementRow, settlementColumns, toSettlement } from './settlement-row.js'
import { asError, perTickBatch } from './per-tick-batch.js'
import { journalCall } from './with-timeout.js'

export interface KnexSettlementJournalOptions {
  /** Every call answers (or fails with `JournalUnavailable`) within this bound [5000 ms]. */
  readonly timeoutMs?: number
  /** How many times `claim` re-runs when the conflicting row was not visible to its snapshot [8]. */
  readonly claimRetries?: number
  /** Called for every statement sent to Postgres (a batch counts once): for measurements. */
  readonly onStatement?: () => void
}

type Rows<R> = { readonly rows: ReadonlyArray<R>; readonly rowCount: number | null }

const lower = <H extends string>(hex: H): H => hex.toLowerCase() as H

const requirementsJson = (requirements: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(requirements, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))

const insertAttemptSql = (guarded: string) => `
with guarded as (${guarded})
insert into settlement_attempts (settlement_id, generation, tx_hash, raw, account_nonce, max_fee_per_gas,
  max_priority_fee_per_gas, sent_at)
select id, generation, ?, ?, ?::numeric, ?::numeric, ?::numeric, ? from guarded
returning id`

// Replacements share the account nonce of the claim's attempts (docs/ARCHITECTURE.md §5 step 4).
const addAttemptSql = insertAttemptSql(`
  update settlements s set tx_hash = ?, updated_at = now()
  where s.id = ?::bigint and s.generation = ? and s.state = 'submitted'
    and not exists (select 1 from settlement_attempts a
      where a.settlement_id = s.id and a.generation = s.generation and a.account_nonce <> ?::numeric)
  returning s.id, s.generation`)

/**
 * One statement for one or more authorizations (distinct keys): insert each row, or take a `released` one back
 * (generation + 1, fields reset); returns the rows claimed and, for the others, the existing row it could see with the
 * attempts of its current claim.
 */
const claimSql = `
with v as (
  select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[],
    ?::text[], ?::jsonb[], ?::text[], ?::text[], ?::text[])
    as v(network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements, owner,
      idempotency_key, request_hash)
),
claimed as (
  insert into settlements as s (network, asset, payer, nonce, payee, value, valid_after, valid_before, signature,
    requirements, state, generation, owner, idempotency_key, request_hash)
  select network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements, 'claimed', 1,
    owner, idempotency_key, request_hash from v
  on conflict (network, asset, payer, nonce) do update set
    payee = excluded.payee, value = excluded.value, valid_after = excluded.valid_after,
    valid_before = excluded.valid_before, signature = excluded.signature, requirements = excluded.requirements,
    state = 'claimed', generation = s.generation + 1, owner = excluded.owner,
    idempotency_key = excluded.idempotency_key, request_hash = excluded.request_hash,
    tx_hash = null, block_number = null, gas_used = null, error = null, claimed_at = now(), updated_at = now()
  where s.state = 'released'
  returning s.*
)
select true as claimed, c.*, '[]'::json as attempts from claimed c
union all
select false as claimed, ${settlementColumns('s')} from v
join settlements s on s.network = v.network and s.asset = v.asset and s.payer = v.payer and s.nonce = v.nonce
where not exists (select 1 from claimed c
  where c.network = v.network and c.asset = v.asset and c.payer = v.payer and c.nonce = v.nonce)`

/** claimed → submitted with the attempt, for one or more rows (distinct ids): the ids whose attempt was stored. */
const markSubmittedSql = `
with v as (
  select * from unnest(?::text[], ?::bigint[], ?::integer[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[],
    ?::timestamptz[])
    as v(tx_hash, id, generation, raw, account_nonce, max_fee_per_gas, max_priority_fee_per_gas, sent_at)
),
guarded as (
  update settlements s set state = 'submitted', tx_hash = v.tx_hash, updated_at = now()
  from v where s.id = v.id and s.generation = v.generation and s.state = 'claimed'
  returning s.id, s.generation, v.tx_hash, v.raw, v.account_nonce, v.max_fee_per_gas, v.max_priority_fee_per_gas,
    v.sent_at
)
insert into settlement_attempts (settlement_id, generation, tx_hash, raw, account_nonce, max_fee_per_gas,
  max_priority_fee_per_gas, sent_at)
select id, generation, tx_hash, raw, account_nonce, max_fee_per_gas, max_priority_fee_per_gas, sent_at from guarded
returning settlement_id as id`

/**
 * submitted → confirmed | reverted, when the receipt is of one of the claim's attempts, for one or more rows (distinct
 * ids): the ids moved.
 */
const markMinedSql = `
update settlements s set state = v.state, tx_hash = v.tx_hash, block_number = v.block_number, gas_used = v.gas_used,
  error = v.error, updated_at = now()
from unnest(?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::text[], ?::bigint[], ?::integer[])
  as v(state, tx_hash, block_number, gas_used, error, id, generation)
where s.id = v.id and s.generation = v.generation and s.state = 'submitted'
  and exists (select 1 from settlement_attempts a
    where a.settlement_id = s.id and a.generation = s.generation and a.tx_hash = v.tx_hash)
returning s.id`

const markReleasedSql = `
update settlements set state = 'released', error = ?, updated_at = now()
where id = ?::bigint and generation = ? and state = ?`

// None of our attempts was mined, so the row names no transaction; the note says what the chain told.
const markSettledElsewhereSql = `
update settlements set state = 'confirmed', tx_hash = null, block_number = null, gas_used = null, error = ?,
  updated_at = now()
where id = ?::bigint and generation = ? and state = 'submitted'`

const markReorgedSql = `
update settlements s set state = 'submitted', block_number = null, gas_used = null, error = null, updated_at = now(),
  tx_hash = (select a.tx_hash from settlement_attempts a
    where a.settlement_id = s.id and a.generation = s.generation order by a.id desc limit 1)
where s.id = ?::bigint and s.generation = ? and s.state in ('confirmed', 'reverted')`

const selectSettlements = (where: string) => `select ${settlementColumns('s')} from settlements s where ${where}`

const findUnfinishedSql = `${selectSettlements(
  `s.state in ('claimed', 'submitted') and s.updated_at < ?`,
)} order by s.updated_at, s.id limit ?`
const findByKeySql = selectSettlements('s.network = ? and s.asset = ? and s.payer = ? and s.nonce = ?')
const findByTxHashSql = selectSettlements(
  's.id = (select a.settlement_id from settlement_attempts a where a.tx_hash = ?)',
)
const findByIdempotencyKeySql = `${selectSettlements(
  's.idempotency_key = ?',
)} order by s.claimed_at desc, s.id desc limit 1`

const attemptBindings = (attempt: Attempt) => [
  lower(attempt.txHash),
  attempt.raw,
  attempt.accountNonce.toString(),
  attempt.maxFeePerGas.toString(),
  attempt.maxPriorityFeePerGas.toString(),
  attempt.sentAt,
]

interface PgConnection {
  readonly query: (config: { name: string; text: string; values: unknown[] }) => Promise<Rows<unknown>>
}

interface KnexClientInternals {
  readonly acquireConnection: () => Promise<PgConnection>
  readonly releaseConnection: (connection: PgConnection) => Promise<unknown>
}

/** `?` placeholders (as knex writes them) → `$1…$n` (as Postgres takes them); the SQL here has no `?` of its own. */
const positional = (sql: string): string => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

const statementNames = new Map<string, { readonly name: string; readonly text: string }>()

/**
 * Runs one of this journal's statements as a named prepared statement on a connection of knex's pool: Postgres
 * parses and plans each statement once per connection instead of on every call, and knex's per-call formatting is
 * skipped. The pool (bounds, validation of connections whose query timed out) stays knex's.
 */
const prepared = async <R>(knex: Knex, sql: string, bindings: ReadonlyArray<unknown>, onStatement?: () => void): Promise<Rows<R>> => {
  let statement = statementNames.get(sql)
  if (statement === undefined) {
    statement = { name: `x402_journal_${statementNames.size + 1}`, text: positional(sql) }
    statementNames.set(sql, statement)
  }
  const client = knex.client as unknown as KnexClientInternals
  const connection = await client.acquireConnection()
  try {
    onStatement?.()
    return (await connection.query({ name: statement.name, text: statement.text, values: bindings as unknown[] })) as Rows<R>
  } finally {
    await client.releaseConnection(connection)
  }
}

const transition = (result: Rows<unknown>): Transition => ((result.rowCount ?? 0) > 0 ? 'applied' : 'stale')

/** Postgres answered with an error: the statement was rolled back. */
const refusedByTheDatabase = (error: unknown): boolean => error instanceof pg.DatabaseError

type AttemptOf = { readonly ref: ClaimRef; readonly attempt: Attempt }
type ReceiptOf = { readonly ref: ClaimRef; readonly receipt: TransferReceipt }

const keyString = (key: { network: string; asset: string; payer: string; nonce: string }): string =>
  `${key.network}|${lower(key.asset)}|${lower(key.payer)}|${lower(key.nonce)}`
const refKey = ({ ref }: { readonly ref: ClaimRef }): string => ref.id

/** Rows of bindings → one array per column, as `unnest` takes them. */
const transpose = (rows: ReadonlyArray<ReadonlyArray<unknown>>): unknown[][] =>
  rows[0]!.map((_, c) => rows.map((row) => row[c]))

const appliedByRef = (items: ReadonlyArray<{ readonly ref: ClaimRef }>, result: Rows<{ id: string }>): Transition[] => {
  const applied = new Set(result.rows.map((row) => String(row.id)))
  return items.map(({ ref }) => (applied.has(String(ref.id)) ? 'applied' : 'stale'))
}

/** The journal of docs/ARCHITECTURE.md §5 over Postgres; build `knex` with `createKnex` so that every wait is bounded. */
export const makeKnexSettlementJournal = (
  knex: Knex,
  options: KnexSettlementJournalOptions = {},
): SettlementJournal => {
  const timeoutMs = options.timeoutMs ?? defaultJournalTimeoutMs
  const claimRetries = options.claimRetries ?? 8
  const raw = <R>(sql: string, bindings: ReadonlyArray<unknown>) => prepared<R>(knex, sql, bindings, options.onStatement)

  const findOne = (operation: string, sql: string, bindings: ReadonlyArray<Knex.RawBinding>) =>
    journalCall(operation, timeoutMs, async () => {
      const result = await raw<SettlementRow>(sql, bindings)
      const row = result.rows[0]
      return row === undefined ? O.none : O.some(toSettlement(row))
    })

  const keyBindings = (key: SettlementKey) => [key.network, lower(key.asset), lower(key.payer), lower(key.nonce)]

  const claimBindings = (settlement: NewSettlement): Knex.RawBinding[] => [
    ...keyBindings(settlement),
    lower(settlement.payee),
    settlement.value.toString(),
    settlement.validAfter.toString(),
    settlement.validBefore.toString(),
    settlement.signature,
    requirementsJson(settlement.requirements),
    lower(settlement.owner),
    settlement.idempotencyKey ?? null,
    settlement.requestHash ?? null,
  ]

  const claimOne = async (settlement: NewSettlement): Promise<ClaimResult> => {
    const bindings = transpose([claimBindings(settlement)])
    for (let attempt = 1; attempt <= claimRetries; attempt++) {
      const result = await raw<SettlementRow & { claimed: boolean }>(claimSql, bindings)
      const row = result.rows[0]
      if (row?.claimed === true) return { _tag: 'Claimed', settlement: toSettlement(row) }
      // No row: the conflicting row was committed after this statement's snapshot was taken. A `released`
      // row here was claimed again by someone else meanwhile. Either way the next snapshot tells.
      if (row !== undefined && row.state !== 'released') return { _tag: 'Conflict', existing: toSettlement(row) }
    }
    throw new Error(`the authorization's row kept changing during ${claimRetries} attempts`)
  }

  const claimMany = async (settlements: ReadonlyArray<NewSettlement>): Promise<ReadonlyArray<ClaimResult | Error>> => {
    const result = await raw<SettlementRow & { claimed: boolean }>(claimSql, transpose(settlements.map(claimBindings)))
    const byKey = new Map(result.rows.map((row) => [keyString(row), row]))
    return Promise.all(
      settlements.map((settlement): ClaimResult | Promise<ClaimResult | Error> => {
        const row = byKey.get(keyString(settlement))
        if (row?.claimed === true) return { _tag: 'Claimed', settlement: toSettlement(row) }
        if (row !== undefined && row.state !== 'released') return { _tag: 'Conflict', existing: toSettlement(row) }
        // Not visible to the statement's snapshot: this one alone, as `claim` does; its failure is its own.
        return claimOne(settlement).catch(asError)
      }),
    )
  }

  const claimBatched = perTickBatch({ one: claimOne, many: claimMany, keyOf: keyString, refusedByTheDatabase })
  const claim: SettlementJournal['claim'] = (settlement) => journalCall('claim', timeoutMs, () => claimBatched(settlement))

  const markSubmittedMany = async (items: ReadonlyArray<AttemptOf>): Promise<ReadonlyArray<Transition>> => {
    const result = await raw<{ id: string }>(markSubmittedSql, [
      items.map(({ attempt }) => lower(attempt.txHash)),
      items.map(({ ref }) => ref.id),
      items.map(({ ref }) => ref.generation),
      ...transpose(items.map(({ attempt }) => attemptBindings(attempt).slice(1))),
    ])
    return appliedByRef(items, result)
  }

  const markSubmittedBatched = perTickBatch({ one: async (item: AttemptOf) => (await markSubmittedMany([item]))[0]!, many: markSubmittedMany, keyOf: refKey, refusedByTheDatabase })
  const markSubmitted: SettlementJournal['markSubmitted'] = (ref, attempt) =>
    journalCall('markSubmitted', timeoutMs, () => markSubmittedBatched({ ref, attempt }))

  const addAttempt: SettlementJournal['addAttempt'] = (ref, attempt) =>
    journalCall('addAttempt', timeoutMs, async () =>
      transition(
        await raw(addAttemptSql, [
          lower(attempt.txHash),
          ref.id,
          ref.generation,
          attempt.accountNonce.toString(),
          ...attemptBindings(attempt),
        ]),
      ),
    )

  const minedBindings = ({ ref, receipt }: ReceiptOf): Knex.RawBinding[] => [
    receipt.succeeded ? 'confirmed' : 'reverted',
    lower(receipt.txHash),
    receipt.blockNumber.toString(),
    receipt.gasUsed.toString(),
    receipt.succeeded ? null : (receipt.revertReason ?? 'reverted'),
    ref.id,
    ref.generation,
  ]

  const markMinedMany = async (items: ReadonlyArray<ReceiptOf>): Promise<ReadonlyArray<Transition>> =>
    appliedByRef(items, await raw<{ id: string }>(markMinedSql, transpose(items.map(minedBindings))))

  const markMinedBatched = perTickBatch({ one: async (item: ReceiptOf) => (await markMinedMany([item]))[0]!, many: markMinedMany, keyOf: refKey, refusedByTheDatabase })
  const markMined: SettlementJournal['markMined'] = (ref, receipt) =>
    journalCall('markMined', timeoutMs, () => markMinedBatched({ ref, receipt }))

  const markReleased: SettlementJournal['markReleased'] = (ref, from, reason) =>
    journalCall('markReleased', timeoutMs, async () =>
      transition(await raw(markReleasedSql, [reason, ref.id, ref.generation, from])),
    )

  const markSettledElsewhere: SettlementJournal['markSettledElsewhere'] = (ref, note) =>
    journalCall('markSettledElsewhere', timeoutMs, async () =>
      transition(await raw(markSettledElsewhereSql, [note, ref.id, ref.generation])),
    )

  const markReorged: SettlementJournal['markReorged'] = (ref: ClaimRef) =>
    journalCall('markReorged', timeoutMs, async () => transition(await raw(markReorgedSql, [ref.id, ref.generation])))

  const findUnfinished: SettlementJournal['findUnfinished'] = (updatedBefore, limit) =>
    journalCall('findUnfinished', timeoutMs, async () => {
      const result = await raw<SettlementRow>(findUnfinishedSql, [updatedBefore, limit])
      return result.rows.map(toSettlement)
    })

  return {
    claim,
    markSubmitted,
    addAttempt,
    markMined,
    markReleased,
    markSettledElsewhere,
    markReorged,
    findUnfinished,
    findByKey: (key) => findOne('findByKey', findByKeySql, keyBindings(key)),
    findByTxHash: (txHash: Hex) => findOne('findByTxHash', findByTxHashSql, [lower(txHash)]),
    findByIdempotencyKey: (key) => findOne('findByIdempotencyKey', findByIdempotencyKeySql, [key]),
  }
}
