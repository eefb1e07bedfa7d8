/**
 * The finality watcher's statements (docs/ARCHITECTURE.md §5.6), each with the values its `?` placeholders take; those
 * keyed by owner take a scope's filter first (`journal-scope.ts`: its values where its text is).
 */
import { selectSettlements } from './journal-read-sql.js'
import { heldByNoOtherRow, watchedEnd } from './journal-sql.js'

/**
 * Values: the blocks' heights and hashes, the scope's, owner. confirmed → final for the owner's rows recorded in those
 * blocks: a row whose recorded hash differs (its block was replaced) is not moved. Answers the ids moved.
 */
export const markFinalSql = (scope: string): string => `
update settlements s set state = 'final', updated_at = now()
from unnest(?::numeric[], ?::text[]) as v(block_number, block_hash)
where ${scope}s.owner = ? and s.state = 'confirmed' and s.block_number = v.block_number and s.block_hash = v.block_hash
returning s.id`

/**
 * Values: tx hash, block number, block hash, gas used, id, generation. confirmed | final → confirmed at another
 * block: the row's transaction, or one of its claim's attempts, was mined again after a reorg; so is a watched
 * reverted, cancelled or released row whose transaction the new chain mined successfully (its error then no longer
 * holds).
 */
export const markMinedAgainSql = `
update settlements s set state = 'confirmed', tx_hash = v.tx_hash, block_number = v.block_number,
  block_hash = v.block_hash, gas_used = v.gas_used, updated_at = now(),
  error = case when s.state in ('confirmed', 'final') then s.error else null end,
  watch_ended_at = null
from (select ?::text as tx_hash, ?::numeric as block_number, ?::text as block_hash, ?::numeric as gas_used) v
where s.id = ?::bigint and s.generation = ? and (s.state in ('confirmed', 'final', 'reverted', 'cancelled') or ${watchedEnd('s')})
  and (s.tx_hash = v.tx_hash or exists (select 1 from settlement_attempts a
    where a.settlement_id = s.id and a.generation = s.generation and a.tx_hash = v.tx_hash))`

/**
 * Values: scope's, owner, scope's, owner, lowest final block, scope's, owner, limit. The distinct blocks the finality
 * watcher checks at a new head (docs/ARCHITECTURE.md §5.6); each branch is served by its partial index. A row without
 * a recorded block hash (confirmed before migration 0003) has nothing to compare: it is not watched, and never judged
 * reorged.
 */
export const blocksToWatchSql = (scope: string): string => `
select block_number::text as block_number, block_hash from (
  select block_number, block_hash from settlements s
  where ${scope}s.owner = ? and s.state = 'confirmed' and s.block_hash is not null
  union
  select block_number, block_hash from settlements s
  where ${scope}s.owner = ? and s.state = 'final' and s.block_number >= ?::numeric and s.block_hash is not null
  union
  select block_number, block_hash from settlements s where ${scope}s.owner = ? and ${watchedEnd('s')}
) b order by block_number, block_hash limit ?`

/**
 * Values: scope's, owner, the lowest height still watched. Ends the watch of the owner's reverted, cancelled and
 * released rows below it.
 */
export const endWatchSql = (scope: string): string => `
update settlements s set watch_ended_at = now()
where ${scope}s.owner = ? and ${watchedEnd('s')} and s.block_number < ?::numeric
returning s.id::text as id`

/**
 * Values: scope's, the lowest final block still watched (null: none). Owners with rows to follow, and how many
 * (docs/ARCHITECTURE.md §5.8).
 */
export const ownersWithOpenRowsSql = (scope: string): string => `
select owner, count(*)::integer as rows from settlements s
where ${scope}(s.state in ('claimed', 'submitted', 'confirmed') or ${watchedEnd('s')}
  or (s.state = 'final' and s.block_hash is not null and s.block_number >= ?::numeric))
group by owner order by owner`

/**
 * A reorged row signed again at a new account nonce (docs/ARCHITECTURE.md §5.6): stored only while the row is
 * `submitted` after a reorg, when none of the claim's attempts holds that nonce and no other row that hash. Values as
 * `addAttempt`'s. Answers the row's id when applied.
 */
export const markResignedSql = `
with v as (
  select ?::text as tx_hash, ?::bigint as id, ?::integer as generation, ?::text as raw, ?::numeric as account_nonce,
    ?::numeric as max_fee_per_gas, ?::numeric as max_priority_fee_per_gas, ?::timestamptz as sent_at
),
guarded as (
  update settlements s set tx_hash = v.tx_hash, updated_at = now()
  from v where s.id = v.id and s.generation = v.generation and s.state = 'submitted' and s.reorged_at is not null
    and ${heldByNoOtherRow('v.tx_hash', 's')}
    and not exists (select 1 from settlement_attempts a
      where a.settlement_id = s.id and a.generation = s.generation and a.account_nonce is not distinct from v.account_nonce)
  returning s.id
),
added as (
  insert into settlement_attempts (settlement_id, generation, tx_hash, raw, account_nonce, max_fee_per_gas,
    max_priority_fee_per_gas, sent_at)
  select v.id, v.generation, v.tx_hash, v.raw, v.account_nonce, v.max_fee_per_gas, v.max_priority_fee_per_gas, v.sent_at
  from v join guarded g on g.id = v.id
)
select id from guarded`

/** Values: scope's, owner, block number, block hash (null: recorded without one). */
export const findInBlockSql = (scope: string): string =>
  selectSettlements(
    `${scope}s.owner = ? and (s.state in ('confirmed', 'final') or ${watchedEnd('s')}) and s.block_number = ?::numeric
    and s.block_hash is not distinct from ?`,
  )
