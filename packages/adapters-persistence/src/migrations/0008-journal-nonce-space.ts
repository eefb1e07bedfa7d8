import type { Knex } from 'knex'

/**
 * Permit2 and `upto` payments (docs/ARCHITECTURE.md §5, "Nonce spaces"), the expand half: rows gain `nonce_space` (the
 * contract keeping the nonce: the token for EIP-3009, Permit2's address for Permit2, whose nonce is the payer's across
 * every token), null until filled; `permit2` (a Permit2 row's terms as JSON, amounts as decimal text: null for
 * EIP-3009); state `waived` (an `upto` settle of 0: an end state, no transaction). A row inserted without a nonce space
 * (by a replica of the previous release) takes its token. Old rows are filled at start-up (journal-nonce-space.ts);
 * the unique key (chain_id, nonce_space, payer, nonce) and the sponsored permits' key are built concurrently after
 * the migrations (journal-indexes.ts). The next release makes `nonce_space` not null, swaps the unique key to it,
 * validates the checks and drops the trigger. Checks are added `not valid`: no scan of the table under its lock (every
 * old row passes them).
 */
const statements: ReadonlyArray<string> = [
  `alter table settlements add column nonce_space text`,
  `alter table settlements add column permit2 jsonb`,
  `alter table settlements drop constraint settlements_state_check`,
  `alter table settlements add constraint settlements_state_check
    check (state in ('claimed', 'submitted', 'confirmed', 'final', 'reverted', 'released', 'cancelled', 'unsettleable',
      'waived')) not valid`,
  `alter table settlements add constraint settlements_nonce_space_check
    check (nonce_space ~ '^0x[0-9a-f]{40}$') not valid`,
  // A nonce space other than the token is unique per chain only: a row of it needs its chain.
  `alter table settlements add constraint settlements_nonce_space_chain_check
    check (nonce_space = asset or chain_id is not null) not valid`,
  `alter table settlements add constraint settlements_permit2_check
    check (permit2 is null or (jsonb_typeof(permit2) = 'object' and permit2 ->> 'scheme' in ('exact', 'upto')))
    not valid`,
  // As 0007's: runs as the table's owner, its search path fixed, whatever role the inserting replica has.
  `create function settlements_fill_nonce_space() returns trigger language plpgsql
  security definer set search_path from current as $$
  begin
    if new.nonce_space is null then
      new.nonce_space := new.asset;
    end if;
    return new;
  end
  $$`,
  `create trigger settlements_fill_nonce_space before insert on settlements
    for each row execute function settlements_fill_nonce_space()`,
]

export const journalNonceSpace = {
  name: '0008-journal-nonce-space',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
