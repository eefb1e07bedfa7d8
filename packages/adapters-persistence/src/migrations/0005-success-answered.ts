import type { Knex } from 'knex'

/**
 * One `success` answer per authorization (docs/ARCHITECTURE.md §5.2): who asked for the row's claim (`caller`: an API
 * key's id, else the client's address) and which answer said `success` (`success_answered_by`, set once by a
 * conditional update before that answer leaves). `request_hash` is now stored for every claim, not only keyed ones.
 */
const statements: ReadonlyArray<string> = [
  `alter table settlements add column caller text`,
  `alter table settlements add column success_answered_by text`,
  `alter table settlements add column success_answered_at timestamptz`,
]

export const successAnswered = {
  name: '0005-success-answered',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
