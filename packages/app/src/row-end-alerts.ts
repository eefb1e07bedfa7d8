import type { RowEndAlerts } from '@x402-facilitator/domain'
import type { Logger as PinoLogger } from 'pino'
import { Counter, type Registry } from 'prom-client'

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
export const makeRowEndAlerts = (logger: PinoLogger, registry: Registry): RowEndAlerts => {
  const cancelled = new Counter({
    name: 'facilitator_cancelled_authorizations_total',
    help: 'Settlements whose authorization the payer cancelled on-chain before ours was mined',
    registers: [registry],
  })
  const unsettleable = new Counter({
    name: 'facilitator_unsettleable_settlements_total',
    help: 'Settlements a reorg sent back that can no longer be mined (expired, funds gone, paused, blacklisted)',
    labelNames: ['reason'] as const,
    registers: [registry],
  })
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
