/**
 * Recovery's statements on released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5), each
 * with the values its `?` placeholders take, in order.
 */
import { selectSettlements } from './journal-read-sql.js'

/** A `released` row of lone attempts that names no block (nothing of it seen mined), not judged yet. */
const releasedToJudge = (alias: string): string => `${alias}.state = 'released' and ${alias}.block_hash is null
  and ${alias}.watch_ended_at is null`

const attemptsOfClaim = (alias: string, also = ''): string => `select 1 from settlement_attempts a
  where a.settlement_id = ${alias}.id and a.generation = ${alias}.generation${also}`

/** A lone attempt of the row in any of its claims (a caller's retry may have taken it back since). */
const loneAttemptOfRow = (alias: string, also = ''): string => `select 1 from settlement_attempts a
  where a.settlement_id = ${alias}.id and a.batch_index is null${also}`

/**
 * Values: scope's, the cursor's time and id (`-infinity` and 0 for the first page), the limit. A row whose current
 * claim sent a settler batch is left out: its transaction's status is not its item's.
 */
export const findReleasedToJudgeSql = (scope: string): string =>
  `${selectSettlements(
    `${scope}${releasedToJudge('s')}
    and (date_trunc('milliseconds', s.updated_at), s.id) > (?::timestamptz, ?::bigint)
    and exists (${loneAttemptOfRow('s')})
    and not exists (${attemptsOfClaim('s', ' and a.batch_index is not null')})`,
  )} order by date_trunc('milliseconds', s.updated_at), s.id limit ?`

/**
 * Values: tx hash, block number, block hash, gas used, id, generation. released → confirmed in the same claim, when
 * the receipt's transaction is a lone attempt of the row, of this claim or an earlier one; the release's reason no
 * longer holds.
 */
export const markReleasedMinedSql = `
update settlements s set state = 'confirmed', tx_hash = v.tx_hash, block_number = v.block_number,
  block_hash = v.block_hash, gas_used = v.gas_used, error = null, updated_at = now()
from (select ?::text as tx_hash, ?::numeric as block_number, ?::text as block_hash, ?::numeric as gas_used) v
where s.id = ?::bigint and s.generation = ? and ${releasedToJudge('s')}
  and exists (${loneAttemptOfRow('s', ' and a.tx_hash = v.tx_hash')})`

/** Values: id, generation. Judged: none of the claim's attempts transferred anything; its watch ends. */
export const endReleasedWatchSql = `
update settlements s set watch_ended_at = now()
where s.id = ?::bigint and s.generation = ? and ${releasedToJudge('s')}`
