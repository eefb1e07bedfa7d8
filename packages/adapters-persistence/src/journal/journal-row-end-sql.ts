/**
 * The journal's statements that end a row or mark it (docs/ARCHITECTURE.md §5): each with its `?` values, in order.
 */
import { canonical, watchedEnd } from './journal-sql.js'
import { refusedByTheDatabase } from './journal-statements.js'

/**
 * Values: reason, the mined batch's hash, block and block hash (nulls: nothing mined), id, generation, from-state. A
 * settler batch that reverted whole is recorded with its block, so that the row is watched through reorgs.
 */
export const markReleasedSql = `
update settlements set state = 'released', error = ?, tx_hash = coalesce(?, tx_hash), block_number = ?::numeric,
  block_hash = ?, updated_at = now()
where id = ?::bigint and generation = ? and state = ?`

/** The values a release records of the transaction that was mined (a batch that reverted whole), or nulls. */
export const releasedBlockValues = (mined?: {
  readonly txHash: string
  readonly blockNumber: bigint
  readonly blockHash?: string
}): unknown[] => [
  mined === undefined ? null : canonical(mined.txHash),
  mined === undefined ? null : mined.blockNumber.toString(),
  mined?.blockHash === undefined ? null : canonical(mined.blockHash),
]

/**
 * Values: `settledElsewhereValues`. None of our attempts was mined: the row names the transaction that used the
 * authorization when known, and the position of the log that paid it; the note says what the chain told. One log pays
 * one payment: when another row of the chain already names that transaction and log, nothing is written and `taken`
 * says so (a write racing past this read breaks `settlements_chain_payment_log_idx`, 23505). Answers one row:
 * `moved` and `taken` (0 or 1).
 */
export const markSettledElsewhereSql = `
with taken as (
  select o.id from settlements o join settlements s on o.chain_id is not distinct from s.chain_id
  where s.id = ?::bigint and o.id <> s.id and o.tx_hash = ? and o.payment_log_index = ?::integer
  limit 1),
moved as (
  update settlements set state = 'confirmed', tx_hash = ?, block_number = ?::numeric, block_hash = ?,
    payment_log_index = ?::integer, gas_used = null, error = ?, updated_at = now()
  where id = ?::bigint and generation = ? and state = 'submitted' and not exists (select 1 from taken)
  returning id)
select (select count(*) from moved)::int as moved, (select count(*) from taken)::int as taken`

/** A write that raced past `markSettledElsewhereSql`'s read, refused by the index that keeps a log to one row. */
export const paymentLogTaken = (error: unknown): boolean =>
  refusedByTheDatabase(error) &&
  (error as { readonly code?: string }).code === '23505' &&
  (error as { readonly constraint?: string }).constraint === 'settlements_chain_payment_log_idx'

export const settledElsewhereValues = (
  ref: { readonly id: string; readonly generation: number },
  note: string,
  by?: {
    readonly txHash: string
    readonly blockNumber: bigint
    readonly blockHash?: string
    readonly paymentLogIndex?: number
  },
): unknown[] => {
  const [txHash, ...block] = otherTransactionValues(by)
  const logIndex = by?.paymentLogIndex ?? null
  return [ref.id, txHash, logIndex, txHash, ...block, logIndex, note, ref.id, ref.generation]
}

/**
 * Values: id, generation. Only a row answered success (`confirmed`, `final`) records `reorged_at`: such a row is signed
 * again at a new nonce when its own was taken; a reverted, cancelled or released one is then released.
 */
export const markReorgedSql = `
update settlements s set state = 'submitted', block_number = null, block_hash = null, gas_used = null, error = null,
  payment_log_index = null, reorged_at = case when s.state in ('confirmed', 'final') then now() else s.reorged_at end,
  updated_at = now(),
  tx_hash = (select a.tx_hash from settlement_attempts a
    where a.settlement_id = s.id and a.generation = s.generation order by a.id desc limit 1)
where s.id = ?::bigint and s.generation = ? and (s.state in ('confirmed', 'reverted', 'final', 'cancelled') or ${watchedEnd('s')})`

/**
 * Values: the cancelling transaction's hash, block and block hash (or nulls), note, id, generation. The payer cancelled
 * the authorization: the row names the cancelling transaction when known.
 */
export const markCancelledSql = `
update settlements set state = 'cancelled', tx_hash = ?, block_number = ?::numeric, block_hash = ?, gas_used = null,
  error = ?, updated_at = now()
where id = ?::bigint and generation = ? and state = 'submitted'`

/** Values: reason, id, generation. A reorged row's trial refused to sign it again: counted, its reason kept. */
export const markRefusedSql = `
update settlements set refusals = refusals + 1, first_refused_at = coalesce(first_refused_at, now()), error = ?,
  updated_at = now()
where id = ?::bigint and generation = ? and state = 'submitted' and reorged_at is not null`

/** Values: reason, id, generation. */
export const markUnsettleableSql = `
update settlements set state = 'unsettleable', error = ?, updated_at = now()
where id = ?::bigint and generation = ? and state = 'submitted' and reorged_at is not null`

export type AnswerOf = { readonly ref: { readonly id: string }; readonly answerId: string }

/**
 * The rows' one `success` answer (docs/ARCHITECTURE.md §5.2), for one or more rows (distinct ids): set once for each
 * row's whole life (a claim never clears it); the ids set. Its last change (`updated_at`, recovery's clock) is left
 * alone.
 */
export const markSuccessAnsweredSql = `
update settlements s set success_answered_by = v.answer_id, success_answered_at = now()
from unnest(?::text[], ?::bigint[]) as v(answer_id, id)
where s.id = v.id and s.success_answered_by is null
returning s.id`

export const markSuccessAnsweredValues = (items: ReadonlyArray<AnswerOf>): unknown[][] => [
  items.map((i) => i.answerId),
  items.map((i) => i.ref.id),
]

/** The hash, block and block hash of a transaction that is not ours (settled elsewhere, a cancellation), or nulls. */
export const otherTransactionValues = (by?: {
  readonly txHash: string
  readonly blockNumber: bigint
  readonly blockHash?: string
}): unknown[] => [
  by === undefined ? null : canonical(by.txHash),
  by?.blockNumber.toString() ?? null,
  by?.blockHash === undefined ? null : canonical(by.blockHash),
]
