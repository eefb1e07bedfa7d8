import type { Knex } from 'knex'

/**
 * Many networks (docs/ARCHITECTURE.md §5, "Networks"), the expand half: rows gain `chain_id` (CAIP-2), null until
 * filled; `journal_networks` maps each served network's name (what `network` holds) to its CAIP-2 id, one to one. A
 * row inserted without a chain id (by a replica of the previous release) takes it from that table. Its indexes are
 * built concurrently after the migrations (journal-indexes.ts); the next release makes the column not null, swaps the
 * unique key to (chain_id, asset, payer, nonce) and drops the trigger.
 */
const statements: ReadonlyArray<string> = [
  `alter table settlements add column chain_id text`,
  `create table journal_networks (
    name text primary key,
    chain_id text not null unique
  )`,
  // The share lock waits for a registration in progress (which then backfills, after it commits, what it could not
  // see): a row is filled here or by that backfill, never by neither. It runs as the table's owner (security definer,
  // its search path fixed): a previous-release replica's role may insert rows without rights to lock that table.
  `create function settlements_fill_chain_id() returns trigger language plpgsql
  security definer set search_path from current as $$
  begin
    if new.chain_id is null then
      lock table journal_networks in share mode;
      select n.chain_id into new.chain_id from journal_networks n where n.name = new.network;
    end if;
    return new;
  end
  $$`,
  `create trigger settlements_fill_chain_id before insert on settlements
    for each row execute function settlements_fill_chain_id()`,
]

export const journalChainId = {
  name: '0007-journal-chain-id',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
