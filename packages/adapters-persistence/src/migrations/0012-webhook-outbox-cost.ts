import type { Knex } from 'knex'

/**
 * The webhook outbox's fan-out leases what it may at once (docs/ARCHITECTURE.md §5.9). It may lease a delivery only
 * if no earlier delivery of its (endpoint, payment) is pending, and its statement's snapshot is taken before its
 * advisory lock: a fan-out of another replica committed in between would be unseen. Each fan-out counts itself up in
 * this one row; an update reads the row's latest version, so a count differing from the snapshot's says another
 * fan-out committed unseen, and that pass leases nothing at once (prune, likewise, deletes no event).
 */
const statements: ReadonlyArray<string> = [
  `create table webhook_fan_out_epoch (
    one boolean primary key default true check (one),
    n bigint not null
  )`,
  'insert into webhook_fan_out_epoch (n) values (0)',
  // Checking the key cost every delivery fan-out writes a look-up and a lock of its event (7 µs of Postgres' CPU a
  // delivery, bench/outbox-cost.mjs). Prune deletes an event only once no delivery names it, and never under a
  // fan-out (its lock and this epoch); the cascade deleted deliveries ended since the prune's bound with their event.
  'alter table webhook_deliveries drop constraint webhook_deliveries_event_seq_fkey',
]

/**
 * bench/outbox-cost.mjs, 2026-11-25 (one endpoint, ~24 deliveries a pass, 30,000 delivered rows kept; medians of 20
 * rounds, per delivered event): Postgres 132 µs and the client 36 before; statements prepared and fan-out marking its
 * events by id, then first attempts leased by fan-out (the lease statement 51 → 3 µs), then no foreign key: 71 and 31.
 */
export const webhookOutboxCost = {
  name: '0012-webhook-outbox-cost',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
