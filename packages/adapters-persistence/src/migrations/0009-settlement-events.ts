import type { Knex } from 'knex'

/** The row's fields an event carries, as 0009 wrote them. */
export const FIELDS_0009 = `    fields := jsonb_build_object('id', new.id::text, 'network', new.network, 'chainId', new.chain_id,
      'asset', new.asset, 'payer', new.payer, 'payee', new.payee, 'nonce', new.nonce, 'value', new.value::text,
      'state', new.state, 'transaction', new.tx_hash, 'blockNumber', new.block_number::text,
      'blockHash', new.block_hash, 'note', new.error);
`

/**
 * The trigger function: the kind of a transition (docs/ARCHITECTURE.md §5.9; null: no event), then the event with
 * `fields` (a plpgsql assignment to `fields`). Later migrations replace it with more fields.
 */
export const recordEventFunction = (verb: 'create' | 'create or replace', fields: string): string =>
  `${verb} function settlements_record_event() returns trigger language plpgsql
  security definer set search_path from current as $$
  declare
    old_state text;
    event_kind text;
    fields jsonb;
  begin
    if tg_op = 'INSERT' then
      event_kind := case when new.state = 'waived' then 'waived' end;
    else
      old_state := old.state;
      if old.state = new.state then
        -- Re-mined in another block after a reorg.
        event_kind := case when new.state = 'confirmed' and new.block_hash is not null
          and new.block_hash is distinct from old.block_hash then 'settled_again' end;
      else
        event_kind := case
          when new.state = 'submitted' and old.state = 'claimed' then 'pending'
          when new.state = 'submitted' then 'reorged'
          when new.state = 'confirmed' and old.state = 'submitted' and new.gas_used is null then 'settled_elsewhere'
          when new.state = 'confirmed' and old.state = 'submitted' and new.reorged_at is null then 'confirmed'
          when new.state = 'confirmed' then 'settled_again'
          when new.state = 'final' then 'final'
          -- A claim released before anything was sent told nobody anything.
          when new.state = 'released' and old.state = 'claimed' then null
          when new.state in ('reverted', 'released', 'cancelled', 'unsettleable') then new.state
        end;
      end if;
    end if;
    if event_kind is null then
      return null;
    end if;
${fields}    -- Re-mined in one step (markMinedAgain): its reorg is told first, so settled_again always follows a reorged.
    if event_kind = 'settled_again' and old_state <> 'submitted' then
      insert into settlement_events (settlement_id, kind, from_state, to_state, settlement)
      values (new.id, 'reorged', old_state, new.state, fields);
    end if;
    insert into settlement_events (settlement_id, kind, from_state, to_state, settlement)
    values (new.id, event_kind, old_state, new.state, fields);
    return null;
  end
  $$`

/**
 * Settlement events (docs/ARCHITECTURE.md §5.9). `settlement_events` is an append-only outbox filled by a trigger on
 * `settlements`, so every transition is recorded in the transaction that makes it, whichever journal statement makes
 * it; the kind is derived from the transition. `webhook_deliveries` holds one row per (event, endpoint), written by
 * the fan-out (app/src/webhooks) and leased by the delivery workers.
 */
const statements: ReadonlyArray<string> = [
  `create table settlement_events (
    id bigint generated always as identity primary key,
    event_id uuid not null default gen_random_uuid() unique,
    settlement_id bigint not null,
    kind text not null,
    from_state text,
    to_state text not null,
    settlement jsonb not null,
    fanned_out boolean not null default false,
    created_at timestamptz not null default now()
  )`,
  `create index settlement_events_unfanned_idx on settlement_events (id) where not fanned_out`,
  `create table webhook_deliveries (
    id bigint generated always as identity primary key,
    event_seq bigint not null references settlement_events (id) on delete cascade,
    settlement_id bigint not null,
    endpoint text not null,
    state text not null default 'pending' check (state in ('pending', 'delivered', 'dead')),
    attempts integer not null default 0,
    next_attempt_at timestamptz not null,
    leased_until timestamptz,
    lease_token uuid,
    last_status integer,
    last_error text,
    created_at timestamptz not null,
    delivered_at timestamptz,
    ended_at timestamptz,
    constraint webhook_deliveries_event_endpoint_key unique (event_seq, endpoint)
  )`,
  `create index webhook_deliveries_due_idx on webhook_deliveries (endpoint, next_attempt_at, id)
    where state = 'pending'`,
  `create index webhook_deliveries_order_idx on webhook_deliveries (endpoint, settlement_id, event_seq)
    where state = 'pending'`,
  `create index webhook_deliveries_ended_idx on webhook_deliveries (ended_at) where state <> 'pending'`,
  recordEventFunction('create', FIELDS_0009),
  `create trigger settlements_record_event after insert or update of state, block_hash on settlements
    for each row execute function settlements_record_event()`,
]

export const settlementEvents = {
  name: '0009-settlement-events',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
