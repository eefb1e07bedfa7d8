import type { RowEndAlerts } from '@x402-facilitator/domain'
import type { Logger as PinoLogger } from 'pino'
import type { Observability } from './observability.js'

/** A bounded label for why a row ended unsettleable (the stored reason names the details). */
const reasonLabel = (reason: string): string =>
  reason.startsWith('authorization expired')
    ? 'expired'
    : reason.includes('paused')
      ? 'paused'
      : reason.includes('blacklisted')
        ? 'blacklisted'
        : 'would_revert'

/**
 * Rows that ended without their payment (docs/ARCHITECTURE.md §5.5, §5.6): a payer's cancellation and a reorged row
 * that can no longer be mined. Either may follow a settle answered success, so each is an error-level line naming the
 * row, and counted.
 */
export const makeRowEndAlerts = (
  logger: PinoLogger,
  { cancelled, unsettleable }: Pick<Observability, 'cancelled' | 'unsettleable'>,
): RowEndAlerts => {
  return {
    ended: (row, end, reason) => {
      const settlement = {
        id: row.id,
        payer: row.payer,
        nonce: row.nonce,
        value: row.value.toString(),
        owner: row.owner,
        txHash: row.txHash,
      }
      if (end === 'cancelled') {
        cancelled.inc()
        logger.error(
          { settlement, reason },
          'settlement cancelled: the payer cancelled the authorization before our transaction was mined',
        )
      } else {
        unsettleable.inc({ reason: reasonLabel(reason) })
        logger.error(
          { settlement, reason },
          'settlement unsettleable: a reorg took it off the chain and it can no longer be mined',
        )
      }
    },
  }
}
