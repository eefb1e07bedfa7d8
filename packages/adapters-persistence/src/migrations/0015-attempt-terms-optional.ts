import type { Knex } from 'knex'

/**
 * An attempt's account nonce and fees are the EVM's (docs/ARCHITECTURE.md §1): another chain family's attempts have
 * none. Expand only: every EVM attempt still writes them, and the previous release, which always does, reads rows as
 * before.
 */
export const attemptTermsOptional = {
  name: '0015-attempt-terms-optional',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(`alter table settlement_attempts
      alter column account_nonce drop not null,
      alter column max_fee_per_gas drop not null,
      alter column max_priority_fee_per_gas drop not null`)
  },
}
