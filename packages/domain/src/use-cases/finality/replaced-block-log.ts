import type { Log } from '../../ports/log.js'
import type { FinalityReport } from '../follow-finality.js'

/**
 * What a replaced block says of one of its rows (docs/ARCHITECTURE.md §5.6): a finality violation when the row was
 * final (logged at error level, counted), a reorg otherwise (warned); nothing when the row had moved on (`Stale`).
 */
export const logReplacedBlock = (
  deps: { readonly logger: Log; readonly violations: { readonly inc: () => void } },
  head: bigint,
  replaced: FinalityReport['replaced'][number],
): void => {
  const { row } = replaced
  if (row.state === 'final' && replaced._tag !== 'Stale') {
    deps.violations.inc()
    deps.logger.error(
      {
        settlement: {
          id: row.id,
          txHash: row.txHash,
          blockNumber: String(row.blockNumber),
          blockHash: row.blockHash,
        },
        head: String(head),
        outcome: replaced._tag,
      },
      'finality violation: the block of a final settlement was replaced',
    )
  } else if (replaced._tag !== 'Stale') {
    deps.logger.warn(
      {
        settlement: { id: row.id, txHash: row.txHash, blockNumber: String(row.blockNumber) },
        outcome: replaced._tag,
      },
      'reorg: the block of a settlement was replaced',
    )
  }
}
