/** The journal's statements for settler batches (docs/ARCHITECTURE.md §5.7), each with the values its `?` take. */
import type { Attempt, ClaimRef } from '@x402-facilitator/domain'
import { attemptValues, canonical } from './journal-sql.js'

/**
 * claimed → submitted for every row of a settler batch, or for none (docs/ARCHITECTURE.md §5.7): the rows are locked
 * and counted first, and nothing is written unless each is in its claim's `claimed` state and no row outside the
 * batch holds the hash. Values: ids, generations (item order), then the attempt's hash, raw bytes, account nonce, fees,
 * time. Answers the ids stored (all or none).
 */
export const markBatchSubmittedSql = `
with v as (
  select v.id, v.generation, (v.item - 1)::integer as batch_index
  from unnest(?::bigint[], ?::integer[]) with ordinality as v(id, generation, item)
),
t as (
  select ?::text as tx_hash, ?::text as raw, ?::numeric as account_nonce, ?::numeric as max_fee_per_gas,
    ?::numeric as max_priority_fee_per_gas, ?::timestamptz as sent_at
),
locked as (
  select s.id from settlements s join v on s.id = v.id and s.generation = v.generation
  where s.state = 'claimed'
  for update of s
),
ok as (
  select (select count(*) from locked) = (select count(*) from v)
    and (select count(distinct id) from v) = (select count(*) from v)
    and not exists (select 1 from settlement_attempts o join t on o.tx_hash = t.tx_hash
      where o.settlement_id not in (select id from v)) as ok
),
stored_batch as (
  insert into settlement_batches (tx_hash, raw) select t.tx_hash, t.raw from t where (select ok from ok)
  on conflict (tx_hash) do nothing
),
updated as (
  update settlements s set state = 'submitted', tx_hash = t.tx_hash, updated_at = now()
  from v, t where s.id = v.id and (select ok from ok)
  returning s.id, s.generation, v.batch_index
)
insert into settlement_attempts (settlement_id, generation, tx_hash, raw, batch_index, account_nonce, max_fee_per_gas,
  max_priority_fee_per_gas, sent_at)
select u.id, u.generation, t.tx_hash, null, u.batch_index, t.account_nonce, t.max_fee_per_gas, t.max_priority_fee_per_gas,
  t.sent_at
from updated u, t
returning settlement_id as id`

export const markBatchSubmittedValues = (refs: ReadonlyArray<ClaimRef>, attempt: Attempt): unknown[] => [
  refs.map((ref) => ref.id),
  refs.map((ref) => ref.generation),
  canonical(attempt.txHash),
  ...attemptValues(attempt),
]

/**
 * A settler batch's replacement (docs/ARCHITECTURE.md §5.7): the new attempt is added, at each row's own item index,
 * to every `submitted` row whose current claim holds `previous` and whose latest attempt is `previous` (or already
 * the new one: a second writer of the same replacement stores nothing more), at the same account nonce. Nothing when
 * a row outside those holds the new hash. Values: previous hash, then the attempt's hash, raw bytes, account nonce,
 * fees, time. Answers the ids of the rows that hold it.
 */
export const addBatchAttemptSql = `
with t as (
  select ?::text as previous, ?::text as tx_hash, ?::text as raw, ?::numeric as account_nonce,
    ?::numeric as max_fee_per_gas, ?::numeric as max_priority_fee_per_gas, ?::timestamptz as sent_at
),
rows as (
  select s.id, s.generation, p.batch_index, latest.tx_hash = t.tx_hash as known
  from t
  join settlement_attempts p on p.tx_hash = t.previous and p.batch_index is not null
  join settlements s on s.id = p.settlement_id and s.generation = p.generation and s.state = 'submitted'
  cross join lateral (select a.tx_hash, a.account_nonce from settlement_attempts a
    where a.settlement_id = s.id and a.generation = s.generation order by a.id desc limit 1) latest
  where latest.tx_hash in (t.previous, t.tx_hash) and latest.account_nonce is not distinct from t.account_nonce
),
ok as (
  select not exists (select 1 from settlement_attempts o join t on o.tx_hash = t.tx_hash
    where o.settlement_id not in (select id from rows)) as ok
),
stored_batch as (
  insert into settlement_batches (tx_hash, raw) select t.tx_hash, t.raw from t
  where (select ok from ok) and exists (select 1 from rows)
  on conflict (tx_hash) do nothing
),
-- Guarded again as it writes: a row mined (or moved on) since the statement's snapshot is left alone.
updated as (
  update settlements s set tx_hash = t.tx_hash, updated_at = now()
  from rows r, t where s.id = r.id and s.generation = r.generation and s.state = 'submitted' and not r.known
    and (select ok from ok)
  returning s.id, s.generation
),
added as (
  insert into settlement_attempts (settlement_id, generation, tx_hash, raw, batch_index, account_nonce, max_fee_per_gas,
    max_priority_fee_per_gas, sent_at)
  select u.id, u.generation, t.tx_hash, null, r.batch_index, t.account_nonce, t.max_fee_per_gas,
    t.max_priority_fee_per_gas, t.sent_at
  from updated u join rows r on r.id = u.id, t
)
select id::text as id from updated
union all
select id::text as id from rows where known and (select ok from ok)`

export const addBatchAttemptValues = (previous: string, attempt: Attempt): unknown[] => [
  canonical(previous),
  canonical(attempt.txHash),
  ...attemptValues(attempt),
]

/**
 * Values: reason, the mined batch's hash, block and block hash (nulls: nothing mined; `releasedBlockValues`), ids,
 * generations, from-state. The batch's rows still in `from` in their claim, in one statement.
 */
export const markBatchReleasedSql = `
update settlements s set state = 'released', error = ?, tx_hash = coalesce(?, s.tx_hash), block_number = ?::numeric,
  block_hash = ?, updated_at = now()
from unnest(?::bigint[], ?::integer[]) as v(id, generation)
where s.id = v.id and s.generation = v.generation and s.state = ?
returning s.id::text as id`
