import * as E from 'fp-ts/lib/Either.js'
import { journalUnavailable } from '../../model/failures.js'
import type { Address, TxHash } from '../../model/payment.js'
import type { LaneMechanism } from '../../ports/lane-mechanism.js'
import type { Log } from '../../ports/log.js'
import type { SettleFinality } from '../../ports/settle-finality.js'
import type { SettlementKey } from '../../ports/settlement-row.js'
import type { KeyFees, LanePorts, SigningKey } from '../../ports/signing-key.js'
import type { SettleDeps, SettleOptions } from '../settle/settle-context.js'
import { settlePayment } from '../settle/settle-payment.js'
import { KeyBreaker } from './key-breaker.js'
import type { ReplicaLockGate } from './replica-lock-gate.js'

/**
 * One signing key's lane (docs/ARCHITECTURE.md §5.8): the key as its chain family opens it (its mechanism: submission
 * queue, recovery passes, replacements; its fees), its replica lock and its breaker; its passes run one after another.
 * To the domain a lane is only other deps: `policy.facilitator` is its account, the rows it claims its own.
 */
export class Lane<P> {
  private lanePorts: SettleDeps & LanePorts & { readonly mechanism: LaneMechanism<P> }
  /** The chain family's mechanism for this key: its settles', submissions', recovery's and replacements'. */
  private readonly mechanism: LaneMechanism<P>
  /** Settles in this lane from their pick to their answer: what the lane picker balances. */
  private settling = 0
  /** Its number among the lanes of its replica lock (one per token of the network). */
  private readonly laneOfGate: number
  /** Backs off a key refused for itself (docs/ARCHITECTURE.md §5.8). */
  readonly breaker = new KeyBreaker()
  /** The key's own funds against its next transaction's fee: a key that cannot pay is skipped. */
  readonly fees: KeyFees
  readonly account: Address

  constructor(
    key: SigningKey<P>,
    readonly gate: ReplicaLockGate,
    shared: LanePorts,
  ) {
    this.account = key.account
    this.laneOfGate = gate.register()
    const { logger } = shared
    const ports: LanePorts = { ...shared, policy: { ...shared.policy, facilitator: key.account } }
    const events = {
      refused: (reason: string) => {
        const backoffMs = this.breaker.trip()
        logger.warn(
          { facilitator: key.account, backoffMs },
          `${reason}; this key is skipped for ${backoffMs} ms, then given one settle`,
        )
      },
      accepted: () => this.breaker.succeeded(),
    }
    const { mechanism, fees, receipts } = key.open({ ports, lock: gate, events })
    this.mechanism = mechanism
    this.fees = fees
    this.lanePorts = { ...ports, mechanism, submissions: mechanism.submissions, submitter: receipts }
    mechanism.onStalled?.((txHash) => this.replaceStalled(txHash, logger))
  }

  /** A stalled transaction of the key replaced at once, in turn with the passes (each lane hears; one replaces). */
  private replaceStalled(txHash: TxHash, logger: Log): void {
    void this.inTurn(async () => {
      if (!this.gate.lockHeld) return
      const outcome = await this.mechanism.replaceStalled(txHash)()
      if (E.isRight(outcome) && outcome.right !== 'stale')
        logger.warn(
          { facilitator: this.account, txHash, outcome: outcome.right },
          "the chain left this key's lowest transaction unmined while later ones waited: replaced at once",
        )
    })
  }

  get deps(): SettleDeps & LanePorts {
    return this.lanePorts
  }

  /** Its settles answer how deep their block is, and wait for it final (`SETTLE_WAIT_FOR=final`), as told. */
  followFinality(finality: SettleFinality): void {
    this.lanePorts = { ...this.lanePorts, finality }
  }

  get inFlight(): number {
    return this.settling
  }

  /** Whether a settle may be given to this lane now (its lock is held and its rows recovered). */
  get available(): boolean {
    return this.gate.settleRefusal() === undefined
  }

  /** Whether its key is not backing off after a refusal (or may take its one probe) and its ETH covers its next transaction, as far as is known. */
  get healthy(): boolean {
    return this.breaker.allows && this.fees.canPay
  }

  /** Every verify rule of the payment's mechanism, in order (verify runs in a route's first lane). */
  readonly verify = (payment: P) => this.mechanism.paymentOf(payment).verify()

  /**
   * Settles in this lane; `keyRefused`: it failed because its own transaction was refused for the key (nothing was
   * sent), as its failure says, not because another settle of the lane tripped the key meanwhile.
   */
  readonly settle = async (request: P, options: SettleOptions) => {
    const probe = this.breaker.enter()
    this.settling++
    try {
      const result = await settlePayment(request, options)(this.lanePorts)()
      return {
        result,
        keyRefused: E.isLeft(result) && result.left._tag === 'ChainUnavailable' && result.left.keyRefused === true,
      }
    } finally {
      this.settling--
      this.breaker.leave(probe)
    }
  }

  /**
   * At start-up this replica holds the lane's lock, so the process that handled its unfinished rows is gone: they are
   * reconciled at once, before any new transaction takes a nonce.
   */
  readonly recover = ({ startUp = false } = {}) => {
    const run = async () => {
      const era = this.gate.currentEra
      if (!this.gate.lockHeld) return E.left(journalUnavailable(this.gate.settleRefusal() ?? 'replica lock not held'))
      const report = await this.mechanism.recover({ startUp })()
      if (E.isRight(report)) this.gate.recovered(era, this.laneOfGate)
      return report
    }
    return this.inTurn(run)
  }

  /**
   * Recovery for these rows at once, whatever their age (docs/ARCHITECTURE.md §5.6: what a reorg sent back), in turn
   * with the passes; answers the rows still in flight after it (all of them while the lock is lost).
   */
  readonly finish = (keys: ReadonlyArray<SettlementKey>): Promise<ReadonlyArray<SettlementKey>> =>
    this.inTurn(async () => {
      if (!this.gate.lockHeld) return keys
      const report = await this.mechanism.finish(keys)()
      return E.isRight(report) ? report.right.stillSubmitted : keys
    })

  /** In turn with every pass of its key on its chain, whichever token's lane (replica-lock-gate.ts). */
  private inTurn<A>(run: () => Promise<A>): Promise<A> {
    return this.gate.inTurn(run)
  }
}
