import type { Knex } from 'knex'

/**
 * Fills `nonce_space` (migration 0008, docs/ARCHITECTURE.md §5, "Nonce spaces") of the rows written before it: every
 * one is EIP-3009, its nonce kept by its token. A range of ids per statement, so that no statement holds many row
 * locks for long; rows the previous release inserts meanwhile are filled by the migration's trigger. Idempotent.
 */
export const fillNonceSpaces = async (knex: Knex, batchRows: number): Promise<void> => {
  const range = await knex.raw<{ rows: Array<{ low: string | null; high: string | null }> }>(
    'select min(id)::text as low, max(id)::text as high from settlements where nonce_space is null',
  )
  const { low, high } = range.rows[0] ?? { low: null, high: null }
  if (low === null || high === null) return
  for (let from = BigInt(low); from <= BigInt(high); from += BigInt(batchRows)) {
    await knex.raw(
      `update settlements set nonce_space = asset
       where nonce_space is null and id >= ?::bigint and id < ?::bigint`,
      [from.toString(), (from + BigInt(batchRows)).toString()],
    )
  }
}
