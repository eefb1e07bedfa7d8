import type { Knex } from 'knex'

/**
 * Settler batches (docs/ARCHITECTURE.md §5.7): one transaction settles many rows. Each row's attempt names the
 * transaction and the row's item index in it; the raw bytes, shared by every item, are stored once per transaction in
 * `settlement_batches` (a batch of 100 payments is ≈ 40 kB: a copy per row would write 4 MB). A lone transfer's
 * attempt keeps its raw bytes and has no index. A batch's hash is held by every row of the batch.
 */
const statements: ReadonlyArray<string> = [
  `create table settlement_batches (
    tx_hash text primary key check (tx_hash ~ '^0x[0-9a-f]{64}$'),
    raw text not null check (raw ~* '^0x[0-9a-f]+$'),
    created_at timestamptz not null default now()
  )`,
  `alter table settlement_attempts alter column raw drop not null`,
  `alter table settlement_attempts add column batch_index integer check (batch_index >= 0)`,
  `alter table settlement_attempts add constraint settlement_attempts_raw_or_batch ` +
    `check ((raw is null) = (batch_index is not null))`,
]

export const batchAttempts = {
  name: '0004-batch-attempts',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
