import type { Knex } from 'knex'
import { releasedReminedEventFunction } from './0013-released-remined-event.js'

const EVM_METHOD = `'transferMethod', case when new.permit2 is null then 'eip3009' else 'permit2' end,`

/**
 * A Solana row's events name how it moved the mint, `transferChecked` (migration 0016's rows; 0010's fields said
 * `eip3009` of every row without Permit2 terms): the event and the receipt signed from it say what happened. The
 * function is 0013's otherwise.
 */
export const svmEventTransferMethodFunction = (): string => {
  const function0013 = releasedReminedEventFunction()
  if (!function0013.includes(EVM_METHOD)) throw new Error("0010's event fields no longer name the transfer method")
  return function0013.replace(
    EVM_METHOD,
    `'transferMethod', case when new.chain_id like 'solana:%' then 'transferChecked'\n` +
      `        when new.permit2 is null then 'eip3009' else 'permit2' end,`,
  )
}

export const svmEventTransferMethod = {
  name: '0017-svm-event-transfer-method',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(svmEventTransferMethodFunction())
  },
}
