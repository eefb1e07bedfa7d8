import type { Knex } from 'knex'

/**
 * Row ends and the rows followed through reorgs (docs/ARCHITECTURE.md §5.5, §5.6): `cancelled` (the payer cancelled
 * the authorization), `unsettleable` (a reorged row that can no longer be mined, after `refusals` trials that refused
 * it since `first_refused_at`); `reverted`, `cancelled` and `released` rows that record a block are watched for reorgs
 * until `watch_ended_at`, their nonces in flight until then. Reverted rows of earlier versions were never watched: they
 * start with their watch ended.
 */
const statements: ReadonlyArray<string> = [
  `alter table settlements drop constraint settlements_state_check`,
  `alter table settlements add constraint settlements_state_check
    check (state in ('claimed', 'submitted', 'confirmed', 'final', 'reverted', 'released', 'cancelled', 'unsettleable'))`,
  `alter table settlements add column refusals integer not null default 0 check (refusals >= 0)`,
  `alter table settlements add column first_refused_at timestamptz`,
  `alter table settlements add column watch_ended_at timestamptz`,
  `update settlements set watch_ended_at = now() where state in ('reverted', 'released', 'cancelled')`,
  `create index settlements_ended_watched_idx on settlements (owner, block_number)
    where state in ('reverted', 'cancelled', 'released') and block_hash is not null and watch_ended_at is null`,
]

export const rowEndsAndWatch = {
  name: '0006-row-ends-and-watch',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
