import * as E from 'fp-ts/lib/Either.js'
import type { Address, FacilitatorPolicy, TxHash } from '../../model/payment.js'
import type { ChainBlocks } from '../../ports/chain-blocks.js'
import type { Log } from '../../ports/log.js'
import type { ReplicaLiveness } from '../../ports/replica-liveness.js'
import type { SettleFinality } from '../../ports/settle-finality.js'
import type { SettlementJournal } from '../../ports/settlement-journal.js'
import type { SettlementKey } from '../../ports/settlement-row.js'
import { checkFinality, type FinalityPolicy, type FinalityReport } from '../follow-finality.js'
import type { ConfirmedRows } from './confirmed-rows.js'
import { FinalWaiters } from './final-waiters.js'
import { describeOrphans, findOrphanedKeys } from './orphaned-keys.js'
import { logReplacedBlock } from './replaced-block-log.js'
import type { PaymentEnds, TransactionReceipts } from '../../ports/payment-ends.js'

/** How often the owners of rows no replica follows are looked for (one grouped read), at most [10 000 ms]. */
const ORPHANS_EVERY_MS = 10_000

/** One signing key's rows (docs/ARCHITECTURE.md §5.8): its policy names the owner, its lane finishes them. */
export interface WatchedLane {
  readonly policy: FacilitatorPolicy
  readonly submitter: TransactionReceipts
  /** Recovery for these rows now; answers the ones still in flight after it. */
  readonly finish: (keys: ReadonlyArray<SettlementKey>) => Promise<ReadonlyArray<SettlementKey>>
  /** Whether this replica may act on the lane's rows now (it holds that key's advisory lock). */
  readonly mayAct: () => boolean
}

export interface FinalityWatcherDeps {
  readonly lanes: ReadonlyArray<WatchedLane>
  readonly journal: SettlementJournal
  readonly ends: Pick<PaymentEnds, 'usedBy'>
  readonly blocks: ChainBlocks
  readonly finality: FinalityPolicy
  readonly headPollMs: number
  readonly logger: Log
  readonly violations: { readonly inc: () => void }
  /** Whose lock is gone: their rows are watched here too (docs/ARCHITECTURE.md §5.8). */
  readonly liveness: ReplicaLiveness
  /** How often they are looked for: as often as recovery runs, at most every `ORPHANS_EVERY_MS`. */
  readonly orphansEveryMs?: number
  /** Noted when a row is confirmed: its lanes are checked again at a head they checked before it. */
  readonly confirmedRows: Pick<ConfirmedRows, 'take'>
}

/** What the watcher keeps per lane: the head it last checked, and the rows a reorg sent back, by key. */
interface LaneWatch {
  readonly lane: WatchedLane
  checkedHead: bigint | undefined
  /** The hash of the head block when it was checked: a new chain of the same height has another. */
  checkedHash?: TxHash
  readonly refinishing: Map<string, SettlementKey>
}

const keyId = (key: SettlementKey): string => `${key.network}|${key.asset}|${key.payer}|${key.nonce}`.toLowerCase()

/**
 * docs/ARCHITECTURE.md §5.6: one loop per replica follows the chain head (`eth_blockNumber` every `headPollMs`); at
 * each new head (or the same one again once a row was confirmed since) it checks, for each signing key's lane (§5.8),
 * the blocks of its confirmed rows in one batch (`checkFinality`), marks the deep ones final, and has recovery finish
 * at once what a reorg sent back to `submitted`, again at each head until they leave that state. A row that was
 * already final and whose block changed is a finality violation: logged at error level, counted, and finished the
 * same way.
 */
export class FinalityWatcher implements SettleFinality {
  private head: bigint | undefined
  private readonly watches: ReadonlyArray<LaneWatch>
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = false
  /**
   * Owners whose lock no replica holds (a key removed from the pool, a stopped replica), watched through the first
   * lane.
   */
  private readonly orphans = new Map<Address, LaneWatch>()
  private orphansLookedAt: number | undefined
  private readonly finalWaiters = new FinalWaiters()

  constructor(private readonly deps: FinalityWatcherDeps) {
    this.watches = deps.lanes.map((lane) => ({ lane, checkedHead: undefined, refinishing: new Map() }))
  }

  /** Blocks on top of `blockNumber` at the head last seen; undefined before the first head. */
  readonly confirmationsOf = (blockNumber: bigint): number | undefined =>
    this.head === undefined ? undefined : Number(this.head > blockNumber ? this.head - blockNumber : 0n)

  /** Resolves true once the row `id` is marked final here, false after `ms`. */
  readonly waitFinal = (id: string, ms: number): { readonly done: Promise<boolean>; readonly cancel: () => void } =>
    this.finalWaiters.wait(id, ms)

  /**
   * One check at the current head (also at start-up: rows left confirmed-not-final by a killed process), lane by lane.
   */
  readonly checkOnce = async (): Promise<void> => {
    const latest = await this.deps.blocks.latest()
    if (E.isLeft(latest)) return
    const { height: head, hash } = latest.right
    this.head = head
    const rowConfirmed = this.deps.confirmedRows.take()
    // A reorg to a new chain as high as the one checked (three blocks replacing three, a missed poll) shows only in
    // the head's hash: checked again, or its replaced blocks would wait for a block that may never come.
    for (const watch of [...this.watches, ...this.orphans.values()])
      if (rowConfirmed || (watch.checkedHead === head && watch.checkedHash !== hash)) watch.checkedHead = undefined
    for (const watch of this.watches) await this.checkLane(watch, head, hash)
    await this.lookForOrphans(head)
    for (const watch of this.orphans.values()) await this.checkLane(watch, head, hash)
  }

  /**
   * docs/ARCHITECTURE.md §5.8: rows of a key no replica runs any more would never be followed by their owner's watch;
   * every replica watches them (the guarded transitions make two watchers safe), finished by its first lane's recovery,
   * which re-sends stored transactions but signs nothing for another key.
   */
  private async lookForOrphans(head: bigint): Promise<void> {
    const first = this.deps.lanes[0]
    if (
      first === undefined ||
      (this.orphansLookedAt !== undefined &&
        performance.now() - this.orphansLookedAt <
          Math.min(this.deps.orphansEveryMs ?? ORPHANS_EVERY_MS, ORPHANS_EVERY_MS))
    )
      return
    this.orphansLookedAt = performance.now()
    const depth = BigInt(this.deps.finality.violationWatchDepth)
    const own = this.deps.lanes.map((lane) => lane.policy.facilitator)
    const found = await findOrphanedKeys(this.deps.journal, this.deps.liveness, own, head > depth ? head - depth : 0n)
    if (E.isLeft(found)) return
    const owners = new Set(found.right.map((o) => o.owner))
    for (const owner of this.orphans.keys()) if (!owners.has(owner)) this.orphans.delete(owner)
    const fresh = found.right.filter((o) => !this.orphans.has(o.owner))
    if (fresh.length > 0)
      this.deps.logger.warn(
        { orphans: fresh },
        `rows of signing keys no replica runs, now watched here: ${describeOrphans(fresh)}`,
      )
    for (const { owner } of fresh) {
      const lane: WatchedLane = { ...first, policy: { ...first.policy, facilitator: owner } }
      this.orphans.set(owner, { lane, checkedHead: undefined, refinishing: new Map() })
    }
  }

  private async checkLane(watch: LaneWatch, head: bigint, hash: TxHash): Promise<void> {
    const { lane, refinishing } = watch
    if (head === watch.checkedHead || !lane.mayAct()) return
    const report = await checkFinality(head)({ ...this.deps, policy: lane.policy, submitter: lane.submitter })()
    if (E.isLeft(report)) {
      this.deps.logger.warn(
        { reason: report.left.reason, facilitator: lane.policy.facilitator },
        'finality check skipped',
      )
      return
    }
    watch.checkedHead = head
    watch.checkedHash = hash
    this.apply(report.right, refinishing)
    if (refinishing.size > 0) {
      const still = await lane.finish([...refinishing.values()])
      refinishing.clear()
      for (const key of still) refinishing.set(keyId(key), key)
      // Not yet mined again: look at the next head even if this one repeats.
      if (still.length > 0) watch.checkedHead = undefined
    }
  }

  private apply(report: FinalityReport, refinishing: Map<string, SettlementKey>): void {
    this.finalWaiters.markFinal(report.final)
    for (const replaced of report.replaced) {
      const { row } = replaced
      logReplacedBlock(this.deps, report.head, replaced)
      if (replaced._tag === 'Reorged') refinishing.set(keyId(row), row)
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
