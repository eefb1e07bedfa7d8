import type { Knex } from 'knex'

/**
 * A row settled by another party's transaction records which of that transaction's logs paid it (docs/ARCHITECTURE.md
 * §5.5): one log pays one payment, so one transaction holding many authorizations is never credited to several rows.
 * Its unique index (`settlements_chain_payment_log_idx`, journal-indexes.ts) is built concurrently after the
 * migrations; until it is valid, the guarded write alone keeps a log to one row.
 */
export const paymentLog = {
  name: '0014-payment-log',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(`alter table settlements add column payment_log_index integer check (payment_log_index >= 0)`)
  },
}
