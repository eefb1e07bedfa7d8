import type { Knex } from 'knex'
import { recordEventFunction } from './0009-settlement-events.js'
import { FIELDS_0010 } from './0010-event-receipt-fields.js'

/** Where 0009's kinds name a confirmed row reached from anything but `submitted`: a reorg's re-mining. */
const REMINED = `          when new.state = 'confirmed' then 'settled_again'`

/**
 * A released row whose transaction was mined after all (docs/ARCHITECTURE.md §5.5) goes `released → confirmed` with
 * no block recorded before: its payment is confirmed for the first time, so the event is `confirmed` (0009's kinds
 * would say `reorged` then `settled_again`, as for a batch-released row a reorg re-mined).
 */
export const releasedMinedEventFunction = (): string => {
  const function0010 = recordEventFunction('create or replace', FIELDS_0010)
  if (!function0010.includes(REMINED)) throw new Error("0009's event kinds no longer name a re-mined row")
  return function0010.replace(
    REMINED,
    `          when new.state = 'confirmed' and old.state = 'released' and old.block_hash is null then 'confirmed'\n` +
      REMINED,
  )
}

export const releasedMinedEvent = {
  name: '0011-released-mined-event',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(releasedMinedEventFunction())
  },
}
