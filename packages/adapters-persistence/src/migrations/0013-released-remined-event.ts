import type { Knex } from 'knex'
import { releasedMinedEventFunction } from './0011-released-mined-event.js'

const FIRST_CONFIRMED = `when new.state = 'confirmed' and old.state = 'released' and old.block_hash is null then 'confirmed'`
const REORG_TOLD_FIRST = `if event_kind = 'settled_again' and old_state <> 'submitted' then`

/**
 * A row confirmed, reorged (`reorged_at` set, its block cleared), released, then judged mined after all
 * (docs/ARCHITECTURE.md §5.5) was told `confirmed` a second time by 0011: a receiver granting on `confirmed` would
 * grant twice. It is `settled_again` (§5.9), following the `reorged` and `released` it was told already, so no second
 * `reorged` goes before it.
 */
export const releasedReminedEventFunction = (): string => {
  const function0011 = releasedMinedEventFunction()
  if (!function0011.includes(FIRST_CONFIRMED) || !function0011.includes(REORG_TOLD_FIRST))
    throw new Error("0011's event kinds no longer read as 0013 expects")
  return function0011
    .replace(FIRST_CONFIRMED, FIRST_CONFIRMED.replace(' then ', ' and new.reorged_at is null then '))
    .replace(
      REORG_TOLD_FIRST,
      `if event_kind = 'settled_again' and old_state <> 'submitted'\n` +
        `      and not (old_state = 'released' and old.block_hash is null) then`,
    )
}

export const releasedReminedEvent = {
  name: '0013-released-remined-event',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(releasedReminedEventFunction())
  },
}
