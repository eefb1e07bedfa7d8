import type { Knex } from 'knex'

/**
 * A transaction hash is unique within one claim of a row, no longer across the table (docs/ARCHITECTURE.md §5): a
 * row released and claimed again may sign the very transaction its earlier claim stored (same nonce, same fees,
 * RFC 6979 signatures), and that attempt is the new claim's too. A hash still leads to one row only: the journal
 * refuses an attempt whose hash another row holds, and `tx_hash` keeps an index for the look-up.
 */
const statements: ReadonlyArray<string> = [
  `alter table settlement_attempts drop constraint settlement_attempts_tx_hash_key`,
  `alter table settlement_attempts add constraint settlement_attempts_claim_tx_hash_key ` +
    `unique (settlement_id, generation, tx_hash)`,
  `create index settlement_attempts_tx_hash_idx on settlement_attempts (tx_hash)`,
]

export const attemptsUniquePerClaim = {
  name: '0002-attempts-unique-per-claim',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
