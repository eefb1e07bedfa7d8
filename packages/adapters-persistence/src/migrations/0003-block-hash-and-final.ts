import type { Knex } from 'knex'

/**
 * Finality (docs/ARCHITECTURE.md §5.6): a row records the hash of its receipt's block, and a `confirmed` row becomes
 * `final` once that block is deep enough; a row a reorg sent back records when. The finality watcher reads, at each new
 * head, the blocks of one owner's `confirmed` rows and of its recent `final` ones: two partial indexes keep that read
 * small whatever the table holds.
 */
const statements: ReadonlyArray<string> = [
  `alter table settlements add column block_hash text check (block_hash ~ '^0x[0-9a-f]{64}$')`,
  // Set when a reorg sends the row back to submitted: recovery may then sign it again at a new nonce.
  `alter table settlements add column reorged_at timestamptz`,
  `alter table settlements drop constraint settlements_state_check`,
  `alter table settlements add constraint settlements_state_check
    check (state in ('claimed', 'submitted', 'confirmed', 'final', 'reverted', 'released'))`,
  `create index settlements_confirmed_idx on settlements (owner, block_number) where state = 'confirmed'`,
  `create index settlements_final_idx on settlements (owner, block_number) where state = 'final'`,
]

export const blockHashAndFinal = {
  name: '0003-block-hash-and-final',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
