import type { Knex } from 'knex'
import { recordEventFunction } from './0009-settlement-events.js'

/**
 * 0009's fields and what a signed receipt states beyond them, built in one `jsonb_build_object` (building 0009's and
 * adding to it with `||` built the object twice).
 */
export const FIELDS_0010 = `    fields := jsonb_build_object('id', new.id::text, 'network', new.network,
      'chainId', new.chain_id, 'asset', new.asset, 'payer', new.payer, 'payee', new.payee, 'nonce', new.nonce,
      'value', new.value::text, 'state', new.state, 'transaction', new.tx_hash, 'blockNumber', new.block_number::text,
      'blockHash', new.block_hash, 'note', new.error, 'scheme', coalesce(new.permit2->>'scheme', 'exact'),
      'transferMethod', case when new.permit2 is null then 'eip3009' else 'permit2' end,
      'maxAmount', coalesce(new.permit2->>'permitted', new.value::text));
`

/**
 * The function is called only for a row whose change may be an event: an insert in `waived`, an update that changes
 * the state or the block hash (each `when` is evaluated without entering plpgsql; the function would record nothing
 * for the others). 0009's single trigger entered it for every claim inserted.
 */
export const recordEventTriggers: ReadonlyArray<string> = [
  'drop trigger settlements_record_event on settlements',
  `create trigger settlements_record_event after update of state, block_hash on settlements for each row
    when (old.state is distinct from new.state or old.block_hash is distinct from new.block_hash)
    execute function settlements_record_event()`,
  `create trigger settlements_record_waived_event after insert on settlements for each row
    when (new.state = 'waived') execute function settlements_record_event()`,
]

/**
 * An event's id stays `gen_random_uuid()` (122 random bits: unique per event but with odds no deployment meets), with
 * no unique index: nothing looks an event up by it or conflicts on it, and a random key's index is the costliest to
 * keep (every insert lands on a random leaf page).
 */
export const dropEventIdUnique = 'alter table settlement_events drop constraint settlement_events_event_id_key'

/**
 * Settlement events carry what a signed receipt states beyond 0009's fields (docs/ARCHITECTURE.md §5.9): the scheme,
 * the transfer method and the maximum the payer signed for (they differ from `exact`, `eip3009` and `value` only for
 * Permit2 and `upto`), so a `confirmed` or `final` event's receipt is signed from the event alone.
 *
 * What events cost Postgres (bench/event-trigger-cost.mjs, 2026-11-25: the backend's CPU, 1,000 payments a round
 * inserted and moved claimed → submitted → confirmed → final, 3 events each; medians of 20 rounds, each paired with a
 * run without the trigger, which cost 338 µs a payment). 20 rows a statement: 0009's form as on main 88.8 µs a payment
 * (29.6 a transition, +26 %); fields built once and `when` clauses 81.7; without the unique index 75.1 (25.0 a
 * transition, +22 %): −15 %. 500 rows a statement: 76.1 → 69.4 → 63.1. Rejected: statement-level triggers over
 * transition tables (97.3; 76.7 at 500 rows: the INSERT itself is the cost, not plpgsql) which also add ≈ 45–75 µs to
 * every update statement moving no row, as most per-tick ones do; dropping the unfanned index (−6 µs, fan-out needs
 * it). No event at all would save the remaining 75 µs a payment.
 */
export const eventReceiptFields = {
  name: '0010-event-receipt-fields',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(recordEventFunction('create or replace', FIELDS_0010))
    for (const statement of recordEventTriggers) await knex.raw(statement)
    await knex.raw(dropEventIdUnique)
  },
}
