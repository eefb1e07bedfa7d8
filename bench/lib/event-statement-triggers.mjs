// Settlement events recorded by statement-level triggers over transition tables: one INSERT … SELECT per statement
// where the row-level trigger of migrations 0009/0010 runs plpgsql and an INSERT per row. The same events (kinds,
// order per payment, fields); measured by bench/event-trigger-cost.mjs, not applied by any migration.

/** The row `n`'s fields an event carries: 0009's, then what a signed receipt states. */
const eventFields = `jsonb_build_object('id', n.id::text, 'network', n.network, 'chainId', n.chain_id,
      'asset', n.asset, 'payer', n.payer, 'payee', n.payee, 'nonce', n.nonce, 'value', n.value::text,
      'state', n.state, 'transaction', n.tx_hash, 'blockNumber', n.block_number::text,
      'blockHash', n.block_hash, 'note', n.error, 'scheme', coalesce(n.permit2->>'scheme', 'exact'),
      'transferMethod', case when n.permit2 is null then 'eip3009' else 'permit2' end,
      'maxAmount', coalesce(n.permit2->>'permitted', n.value::text))`

/** The kind of the transition `o` → `n` (docs/ARCHITECTURE.md §5.9; null: no event), as 0009 derived it. */
const eventKind = `case
      when o.state = n.state then
        -- Re-mined in another block after a reorg.
        case when n.state = 'confirmed' and n.block_hash is not null
          and n.block_hash is distinct from o.block_hash then 'settled_again' end
      when n.state = 'submitted' and o.state = 'claimed' then 'pending'
      when n.state = 'submitted' then 'reorged'
      when n.state = 'confirmed' and o.state = 'submitted' and n.gas_used is null then 'settled_elsewhere'
      when n.state = 'confirmed' and o.state = 'submitted' and n.reorged_at is null then 'confirmed'
      when n.state = 'confirmed' then 'settled_again'
      when n.state = 'final' then 'final'
      -- A claim released before anything was sent told nobody anything.
      when n.state = 'released' and o.state = 'claimed' then null
      when n.state in ('reverted', 'released', 'cancelled', 'unsettleable') then n.state
    end`

/**
 * One INSERT … SELECT per statement over its transition tables, where 0009 ran a plpgsql function and an INSERT per
 * row: a statement touches a row once, so a payment's events keep their order; a row re-mined in one step
 * (markMinedAgain) is told its reorg first, so settled_again always follows a reorged. `old_rows` joins by id.
 */
const recordEventsFunction = `create or replace function settlements_record_events() returns trigger language plpgsql
  security definer set search_path from current as $$
  begin
    if tg_op = 'INSERT' then
      insert into settlement_events (settlement_id, kind, from_state, to_state, settlement)
      select n.id, 'waived', null, n.state, ${eventFields}
      from new_rows n where n.state = 'waived' order by n.id;
    else
      insert into settlement_events (settlement_id, kind, from_state, to_state, settlement)
      select n.id, e.kind, o.state, n.state, ${eventFields}
      from new_rows n join old_rows o on o.id = n.id
      cross join lateral (select ${eventKind} as kind) t
      cross join lateral (values (1, case when t.kind = 'settled_again' and o.state <> 'submitted' then 'reorged' end),
        (2, t.kind)) as e(step, kind)
      where e.kind is not null
      order by n.id, e.step;
    end if;
    return null;
  end
  $$`

/** A variant measured by bench/event-trigger-cost.mjs (not applied by any migration). */
export const recordEventsSql = [
  recordEventsFunction,
  `create trigger settlements_record_inserted_events after insert on settlements
    referencing new table as new_rows for each statement execute function settlements_record_events()`,
  `create trigger settlements_record_updated_events after update on settlements
    referencing old table as old_rows new table as new_rows
    for each statement execute function settlements_record_events()`,
]
