import { inFlightKey, type PayerExposure } from '../../ports/payer-exposure.js'
import { paymentKindOf } from '../model/payment-kind.js'
import type { Settlement } from '../../ports/settlement-journal.js'
import type { RowOutcome } from './recovery-types.js'

/** Outcomes after which the row is no longer `claimed` or `submitted`. */
export const ROW_ENDED: ReadonlySet<RowOutcome> = new Set([
  'mined',
  'reverted',
  'cancelled',
  'unsettleable',
  'settled-elsewhere',
  'released-nonce-consumed',
  'released-node-refused',
  'released-batch-reverted',
  'released-failed-in-batch',
  'released-abandoned-claim',
])
const STILL_IN_FLIGHT: ReadonlySet<RowOutcome> = new Set(['waiting', 'rebroadcast', 'replaced', 'resigned', 'refused'])
/**
 * Ended, but watched through reorgs (docs/ARCHITECTURE.md §5.6): a reorg may re-mine their transaction, so their
 * amount stays in flight until the watch ends (`releaseEndedHolds`).
 */
const WATCHED_END: ReadonlySet<RowOutcome> = new Set(['reverted', 'cancelled'])

/** Rule 9's in-flight amounts follow our rows to their end, also those a settle answered 202 or a restart left. */
export const countRowInFlight =
  (exposure: PayerExposure) =>
  (row: Settlement, outcome: RowOutcome): void => {
    const key = inFlightKey(row.payer, row.nonce)
    const kind = paymentKindOf(row.permit2)
    if (WATCHED_END.has(outcome)) exposure.holdUntilFinished(key, row.payer, row.value, kind)
    else if (ROW_ENDED.has(outcome)) exposure.finished(key)
    else if (row.state === 'submitted' && STILL_IN_FLIGHT.has(outcome))
      exposure.holdUntilFinished(key, row.payer, row.value, kind)
  }
