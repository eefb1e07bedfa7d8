/** The journal's statements (docs/ARCHITECTURE.md §5), each with the values its `?` placeholders take, in order. */
import type { Attempt, ClaimRef, SettlementKey, TransferReceipt } from '@x402-facilitator/domain'

export type AttemptOf = { readonly ref: ClaimRef; readonly attempt: Attempt }
/** `answerId`: the answer that takes the row's success mark in the same write, if none holds it (a success only). */
export type ReceiptOf = { readonly ref: ClaimRef; readonly receipt: TransferReceipt; readonly answerId?: string }

/**
 * How a value is stored: hex (`0x…`, the EVM's addresses and hashes) lower-case, as its case means nothing; any other
 * spelling (a Solana address or signature in base58, a transaction in base64) as given, as its case is its value.
 */
export const canonical = (value: string): string => (/^0x/i.test(value) ? value.toLowerCase() : value)

/** Rows of values → one array per column, as `unnest` takes them (a batch has at least one row). */
export const transpose = (rows: ReadonlyArray<ReadonlyArray<unknown>>): unknown[][] =>
  rows[0]!.map((_, c) => rows.map((row) => row[c]))

/**
 * The attempts of the row's current claim, oldest first, as one JSON column (amounts as text: JSON numbers lose
 * digits).
 */
const attemptsColumn = (alias: string): string => `(
  select coalesce(json_agg(json_build_object(
    'tx_hash', a.tx_hash,
    'raw', coalesce(a.raw, (select b.raw from settlement_batches b where b.tx_hash = a.tx_hash)),
    'batch_index', a.batch_index,
    'account_nonce', a.account_nonce::text,
    'max_fee_per_gas', a.max_fee_per_gas::text,
    'max_priority_fee_per_gas', a.max_priority_fee_per_gas::text,
    'sent_at', a.sent_at
  ) order by a.id), '[]'::json)
  from settlement_attempts a
  where a.settlement_id = ${alias}.id and a.generation = ${alias}.generation
) as attempts`

export const settlementColumns = (alias: string): string => `${alias}.*, ${attemptsColumn(alias)}`

export const keyValues = (key: SettlementKey): unknown[] => [
  key.network,
  canonical(key.asset),
  canonical(key.payer),
  canonical(key.nonce),
]

/** An EVM attempt's nonce and fees; another chain family's attempt has none (null). */
export const attemptValues = (attempt: Attempt): unknown[] => [
  attempt.raw,
  attempt.accountNonce?.toString() ?? null,
  attempt.maxFeePerGas?.toString() ?? null,
  attempt.maxPriorityFeePerGas?.toString() ?? null,
  attempt.sentAt,
]

/**
 * A transaction hash leads to one row (docs/ARCHITECTURE.md §5): an attempt whose hash another row holds is not
 * stored. The same row's earlier claim may hold it (claimed again, the same transaction signed again).
 */
export const heldByNoOtherRow = (hash: string, row: string): string =>
  `not exists (select 1 from settlement_attempts o where o.tx_hash = ${hash} and o.settlement_id <> ${row}.id)`

/** claimed → submitted with the attempt, for one or more rows (distinct ids): the ids whose attempt was stored. */
export const markSubmittedSql = `
with v as (
  select * from unnest(?::text[], ?::bigint[], ?::integer[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[],
    ?::timestamptz[])
    as v(tx_hash, id, generation, raw, account_nonce, max_fee_per_gas, max_priority_fee_per_gas, sent_at)
),
guarded as (
  update settlements s set state = 'submitted', tx_hash = v.tx_hash, updated_at = now()
  from v where s.id = v.id and s.generation = v.generation and s.state = 'claimed' and ${heldByNoOtherRow('v.tx_hash', 's')}
    -- Nor by another row of this batch (the statement does not see its own inserts): both are stale.
    and not exists (select 1 from v w where w.tx_hash = v.tx_hash and w.id <> v.id)
  returning s.id, s.generation, v.tx_hash, v.raw, v.account_nonce, v.max_fee_per_gas, v.max_priority_fee_per_gas,
    v.sent_at
)
insert into settlement_attempts (settlement_id, generation, tx_hash, raw, account_nonce, max_fee_per_gas,
  max_priority_fee_per_gas, sent_at)
select id, generation, tx_hash, raw, account_nonce, max_fee_per_gas, max_priority_fee_per_gas, sent_at from guarded
returning settlement_id as id`

/**
 * The values of `v(tx_hash, id, generation, raw, account_nonce, max_fee_per_gas, max_priority_fee_per_gas, sent_at)`.
 */
const attemptOfValues = ({ ref, attempt }: AttemptOf): unknown[] => [
  canonical(attempt.txHash),
  ref.id,
  ref.generation,
  ...attemptValues(attempt),
]

export const markSubmittedValues = (items: ReadonlyArray<AttemptOf>): unknown[][] =>
  transpose(items.map(attemptOfValues))

/**
 * Another attempt of a `submitted` row; replacements share the account nonce of the claim's latest attempt
 * (docs/ARCHITECTURE.md §5.4). Idempotent: an attempt the claim already has is `applied` and writes nothing (the row
 * keeps its latest hash and its last change); two writers of the same attempt store it once. Answers the row's id when
 * applied.
 */
export const addAttemptSql = `
with v as (
  select ?::text as tx_hash, ?::bigint as id, ?::integer as generation, ?::text as raw, ?::numeric as account_nonce,
    ?::numeric as max_fee_per_gas, ?::numeric as max_priority_fee_per_gas, ?::timestamptz as sent_at
),
guarded as (
  update settlements s set
    tx_hash = case when k.known then s.tx_hash else v.tx_hash end,
    updated_at = case when k.known then s.updated_at else now() end
  from v cross join lateral (select exists (select 1 from settlement_attempts a
    where a.settlement_id = v.id and a.generation = v.generation and a.tx_hash = v.tx_hash) as known) k
  where s.id = v.id and s.generation = v.generation and s.state = 'submitted' and ${heldByNoOtherRow('v.tx_hash', 's')}
    and v.account_nonce is not distinct from (select a.account_nonce from settlement_attempts a
      where a.settlement_id = s.id and a.generation = s.generation order by a.id desc limit 1)
  returning s.id, k.known
),
added as (
  insert into settlement_attempts (settlement_id, generation, tx_hash, raw, account_nonce, max_fee_per_gas,
    max_priority_fee_per_gas, sent_at)
  select v.id, v.generation, v.tx_hash, v.raw, v.account_nonce, v.max_fee_per_gas, v.max_priority_fee_per_gas, v.sent_at
  from v join guarded g on g.id = v.id and not g.known
  on conflict (settlement_id, generation, tx_hash) do nothing
)
select id from guarded`

export const addAttemptValues = attemptOfValues

/**
 * submitted → confirmed | reverted, when the receipt is of one of the claim's attempts, for one or more rows
 * (distinct ids): the ids moved, and whether each row's success mark is its answer id. A confirmed row with an answer
 * id takes the mark too when no answer holds it (docs/ARCHITECTURE.md §5.2): one statement where two would do.
 */
export const markMinedSql = `
update settlements s set state = v.state, tx_hash = v.tx_hash, block_number = v.block_number,
  block_hash = v.block_hash, gas_used = v.gas_used, error = v.error, updated_at = now(),
  success_answered_by = case when v.state = 'confirmed' then coalesce(s.success_answered_by, v.answer_id) else s.success_answered_by end,
  success_answered_at = case when v.state = 'confirmed' and s.success_answered_by is null and v.answer_id is not null
    then now() else s.success_answered_at end
from unnest(?::text[], ?::text[], ?::numeric[], ?::text[], ?::numeric[], ?::text[], ?::bigint[], ?::integer[], ?::text[])
  as v(state, tx_hash, block_number, block_hash, gas_used, error, id, generation, answer_id)
where s.id = v.id and s.generation = v.generation and s.state = 'submitted'
  and exists (select 1 from settlement_attempts a
    where a.settlement_id = s.id and a.generation = s.generation and a.tx_hash = v.tx_hash)
returning s.id, coalesce(s.success_answered_by = v.answer_id, false) as success_marked`

export const markMinedValues = (items: ReadonlyArray<ReceiptOf>): unknown[][] =>
  transpose(
    items.map(({ ref, receipt, answerId }) => [
      receipt.succeeded ? 'confirmed' : 'reverted',
      canonical(receipt.txHash),
      receipt.blockNumber.toString(),
      receipt.blockHash === undefined ? null : canonical(receipt.blockHash),
      receipt.gasUsed.toString(),
      receipt.succeeded ? null : (receipt.revertReason ?? 'reverted'),
      ref.id,
      ref.generation,
      answerId ?? null,
    ]),
  )

/**
 * Rows whose block is still watched for reorgs though they ended without a success (docs/ARCHITECTURE.md §5.6): a
 * reorg may re-mine their transaction successfully. Served by a partial index of migration 0006.
 */
export const watchedEnd = (alias: string): string =>
  `(${alias}.state in ('reverted', 'cancelled', 'released') and ${alias}.block_hash is not null ` +
  `and ${alias}.watch_ended_at is null)`
