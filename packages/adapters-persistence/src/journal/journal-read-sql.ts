/** The journal's reads (docs/ARCHITECTURE.md §5): each with its `?` values, in order. */
import { settlementColumns, watchedEnd } from './journal-sql.js'

export const selectSettlements = (where: string) => `select ${settlementColumns('s')} from settlements s where ${where}`

/**
 * Values: scope's, updated before, the cursor's time and id (`-infinity` and 0 for the first page), the limit. Times
 * are compared at the millisecond a JavaScript Date holds, so a row is never read back after its own cursor.
 */
export const findUnfinishedSql = (scope: string): string =>
  `${selectSettlements(
    `${scope}s.state in ('claimed', 'submitted') and s.updated_at < ?
    and (date_trunc('milliseconds', s.updated_at), s.id) > (?::timestamptz, ?::bigint)`,
  )} order by date_trunc('milliseconds', s.updated_at), s.id limit ?`
/** Values: `keyValues`. */
export const findByKeySql = selectSettlements('s.network = ? and s.asset = ? and s.payer = ? and s.nonce = ?')
/** Values: the lower-case hash. */
export const findByTxHashSql = selectSettlements(
  's.id = (select a.settlement_id from settlement_attempts a where a.tx_hash = ? order by a.id desc limit 1)',
)
/** Values: the key. */
export const findByIdempotencyKeySql = `${selectSettlements(
  's.idempotency_key = ?',
)} order by s.claimed_at desc, s.id desc limit 1`
/**
 * Values: scope's (its chain), the owner (lower case) three times. Every attempt of the owner's current claims that
 * are `submitted` or `confirmed`, or still watched after a revert (a reorg may send them back to the pool); each
 * branch is served by its partial index.
 */
export const accountNoncesInFlightSql = (scope: string): string => `
select distinct a.account_nonce::text as account_nonce from settlements s
join settlement_attempts a on a.settlement_id = s.id and a.generation = s.generation
where ${scope}((s.state = 'submitted' and s.owner = ?) or (s.state = 'confirmed' and s.owner = ?)
  or (s.owner = ? and ${watchedEnd('s')}))
  and a.account_nonce is not null
order by 1`
