import * as E from 'fp-ts/lib/Either.js'
import type { Clock, CancelTimer, SettlementJournal, SvmChain } from '@x402-facilitator/domain'
import type { Logger as PinoLogger } from 'pino'

/** Final rows are not read again: past any slot. */
const NO_FINAL_ROWS = 1n << 62n

/**
 * docs/ARCHITECTURE.md §5.6 on Solana: a confirmed row is final once the cluster says its transaction is `finalized`
 * (31+ slots on top, rooted by a supermajority); its slot holds no hash to compare, the commitment is the cluster's word.
 * One pass per owner every `pollMs`: the blocks of its confirmed rows, their transactions' statuses in one read.
 */
export const startSvmFinality = (deps: {
  readonly journal: SettlementJournal
  readonly chain: Pick<SvmChain, 'statuses'>
  readonly owners: ReadonlyArray<string>
  readonly clock: Clock
  readonly pollMs: number
  readonly logger: PinoLogger
}): (() => Promise<void>) => {
  let cancel: CancelTimer | undefined
  let running: Promise<void> | undefined
  let stopped = false
  const pass = async () => {
    for (const owner of deps.owners) {
      const blocks = await deps.journal.blocksToWatch(owner, NO_FINAL_ROWS, 100)()
      if (E.isLeft(blocks) || blocks.right.length === 0) continue
      for (const block of blocks.right) {
        const rows = await deps.journal.findInBlock(owner, block)()
        if (E.isLeft(rows)) continue
        const confirmed = rows.right.filter((row) => row.state === 'confirmed' && row.txHash !== undefined)
        if (confirmed.length === 0) continue
        const statuses = await deps.chain.statuses(confirmed.map((row) => row.txHash!))()
        if (E.isLeft(statuses)) continue
        if (confirmed.every((row) => statuses.right.get(row.txHash!)?.commitment === 'finalized'))
          await deps.journal.markFinal(owner, [block])()
      }
    }
  }
  const tick = () => {
    cancel = undefined
    if (stopped) return
    running = pass()
      .catch((error: unknown) => deps.logger.error({ err: error }, 'Solana finality pass failed'))
      .finally(() => {
        running = undefined
        if (!stopped) cancel = deps.clock.after(deps.pollMs, tick)
      })
  }
  cancel = deps.clock.after(deps.pollMs, tick)
  return async () => {
    stopped = true
    cancel?.()
    await running
  }
}
