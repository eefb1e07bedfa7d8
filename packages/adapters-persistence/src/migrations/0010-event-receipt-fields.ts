import type { Knex } from 'knex'
import { FIELDS_0009, recordEventFunction } from './0009-settlement-events.js'

/**
 * Settlement events carry what a signed receipt states beyond 0009's fields (docs/ARCHITECTURE.md §5.9): the scheme,
 * the transfer method and the maximum the payer signed for (they differ from `exact`, `eip3009` and `value` only for
 * Permit2 and `upto`), so a `confirmed` or `final` event's receipt is signed from the event alone.
 */
const FIELDS_0010 = `${FIELDS_0009}    fields := fields || jsonb_build_object('scheme', coalesce(new.permit2->>'scheme', 'exact'),
      'transferMethod', case when new.permit2 is null then 'eip3009' else 'permit2' end,
      'maxAmount', coalesce(new.permit2->>'permitted', new.value::text));
`

export const eventReceiptFields = {
  name: '0010-event-receipt-fields',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(recordEventFunction('create or replace', FIELDS_0010))
  },
}
