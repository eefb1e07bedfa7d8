import { checkFinality, type ChainBlocks, type FacilitatorPolicy, type FinalityPolicy, type FinalityReport, type SettlementJournal, type SettlementKey, type TokenReader, type TransferSubmitter } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { Logger as PinoLogger } from 'pino'
import type { Counter } from 'prom-client'

export interface FinalityWatcherDeps {
  readonly policy: FacilitatorPolicy
  readonly journal: SettlementJournal
  readonly submitter: Pick<TransferSubmitter, 'receiptOf'>
  readonly token: Pick<TokenReader, 'authorizationUsedBy'>
  readonly blocks: ChainBlocks
  readonly finality: FinalityPolicy
  readonly headPollMs: number
  readonly logger: PinoLogger
  readonly violations: Counter
  /** Recovery for these rows now; answers the ones still in flight after it. */
  readonly finish: (keys: ReadonlyArray<SettlementKey>) => Promise<ReadonlyArray<SettlementKey>>
  /** Whether this replica may act on its rows now (it holds its advisory lock). */
  readonly mayAct: () => boolean
}

const keyId = (key: SettlementKey): string => `${key.network}|${key.asset}|${key.payer}|${key.nonce}`.toLowerCase()

/**
 * docs/ARCHITECTURE.md §5.6: one loop per replica follows the chain head (`eth_blockNumber` every `headPollMs`); at
 * each new head it checks the blocks of this replica's confirmed rows in one batch (`checkFinality`), marks the deep
 * ones final, and has recovery finish at once what a reorg sent back to `submitted`, again at each head until they
 * leave that state. A row that was already final and whose block changed is a finality violation: logged at error
 * level, counted, and finished the same way.
 */
export class FinalityWatcher {
  private head: bigint | undefined
  private checkedHead: bigint | undefined
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = false
  /** Rows a reorg sent back, finished again at each head until no longer `submitted`, by key. */
  private readonly refinishing = new Map<string, SettlementKey>()
  /** Settles waiting for their row to become final (`SETTLE_WAIT_FOR=final`), by row id. */
  private readonly waiters = new Map<string, Set<() => void>>()

  constructor(private readonly deps: FinalityWatcherDeps) {}

  /** Blocks on top of `blockNumber` at the head last seen; undefined before the first head. */
  readonly confirmationsOf = (blockNumber: bigint): number | undefined =>
    this.head === undefined ? undefined : Number(this.head > blockNumber ? this.head - blockNumber : 0n)

  /** Resolves true once the row `id` is marked final here, false after `ms`. */
  readonly waitFinal = (id: string, ms: number): { readonly done: Promise<boolean>; readonly cancel: () => void } => {
    let finish: (final: boolean) => void = () => undefined
    const done = new Promise<boolean>((resolve) => (finish = resolve))
    const set = this.waiters.get(id) ?? new Set()
    this.waiters.set(id, set)
    const onFinal = () => end(true)
    const timer = setTimeout(() => end(false), Math.max(0, ms))
    const end = (final: boolean) => {
      clearTimeout(timer)
      set.delete(onFinal)
      if (set.size === 0) this.waiters.delete(id)
      finish(final)
    }
    set.add(onFinal)
    return { done, cancel: () => end(false) }
  }

  /** One check at the current head (also at start-up: rows left confirmed-not-final by a killed process). */
  readonly checkOnce = async (): Promise<void> => {
    const head = await this.deps.blocks.head()
    if (E.isLeft(head)) return
    this.head = head.right
    if (head.right === this.checkedHead || !this.deps.mayAct()) return
    const report = await checkFinality(head.right)(this.deps)()
    if (E.isLeft(report)) {
      this.deps.logger.warn({ reason: report.left.reason }, 'finality check skipped')
      return
    }
    this.checkedHead = head.right
    this.apply(report.right)
    if (this.refinishing.size > 0) {
      const still = await this.deps.finish([...this.refinishing.values()])
      this.refinishing.clear()
      for (const key of still) this.refinishing.set(keyId(key), key)
      // Not yet mined again: look at the next head even if this one repeats.
      if (still.length > 0) this.checkedHead = undefined
    }
  }

  private apply(report: FinalityReport): void {
    for (const id of report.final) for (const resolve of [...(this.waiters.get(id) ?? [])]) resolve()
    for (const replaced of report.replaced) {
      const { row } = replaced
      if (row.state === 'final' && replaced._tag !== 'Stale') {
        this.deps.violations.inc()
        this.deps.logger.error(
          { settlement: { id: row.id, txHash: row.txHash, blockNumber: String(row.blockNumber), blockHash: row.blockHash }, head: String(report.head), outcome: replaced._tag },
          'finality violation: the block of a final settlement was replaced',
        )
      } else if (replaced._tag !== 'Stale') {
        this.deps.logger.warn({ settlement: { id: row.id, txHash: row.txHash, blockNumber: String(row.blockNumber) }, outcome: replaced._tag }, 'reorg: the block of a settlement was replaced')
      }
      if (replaced._tag === 'Reorged') this.refinishing.set(keyId(row), row)
    }
  }

  start(): void {
    const tick = () => {
      this.timer = undefined
      if (this.stopped) return
      this.running = this.checkOnce()
        .catch((error: unknown) => this.deps.logger.error({ err: error }, 'finality check failed'))
        .finally(() => {
          this.running = undefined
          if (!this.stopped) this.timer = setTimeout(tick, this.deps.headPollMs)
        })
    }
    this.timer = setTimeout(tick, 0)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.running
  }
}
