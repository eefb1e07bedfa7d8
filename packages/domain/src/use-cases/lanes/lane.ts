import * as E from 'fp-ts/lib/Either.js'
import { journalUnavailable } from '../../model/failures.js'
import type { Address, FacilitatorPolicy, Hex, PaymentRequest } from '../../model/payment.js'
import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { AddressScreen } from '../../ports/address-screen.js'
import type { Clock } from '../../ports/clock.js'
import type { Log } from '../../ports/log.js'
import type { PayerExposure } from '../../ports/payer-exposure.js'
import type { LaneMechanism } from '../../ports/lane-mechanism.js'
import type { ReplicaLiveness } from '../../ports/replica-liveness.js'
import type { SettleFinality } from '../../ports/settle-finality.js'
import type { KeyReads, Settler } from '../../evm/ports/settler.js'
import type { SettlementJournal } from '../../ports/settlement-journal.js'
import type { SettlementKey } from '../../ports/settlement-row.js'
import type { SignatureVerifier } from '../../evm/ports/signature-verifier.js'
import type { TokenReader } from '../../evm/ports/token-reader.js'
import type { TransferSubmitter } from '../../evm/ports/transfer-submitter.js'
import type { RecoveryDeps, RecoveryPolicy, RowEndAlerts } from '../../evm/recovery/recovery-types.js'
import type { SettleDeps, SettleOptions } from '../settle/settle-context.js'
import { settlePayment } from '../settle/settle-payment.js'
import { KeyBreaker, KeyFunds } from './key-health.js'
import { guardKey } from './key-guard.js'
import type { ReplicaLockGate } from './replica-lock-gate.js'

/** What every lane of a replica shares: the policy (its `facilitator` is replaced by the lane's account) and the ports. */
export interface SharedLaneDeps {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  readonly signatures: SignatureVerifier
  readonly token: TokenReader
  /** One for the replica: rule 9 counts a payer's amounts in flight in every lane. */
  readonly exposure: PayerExposure
  readonly journal: SettlementJournal
  /** The operator's deny list (rule S1). */
  readonly screen: AddressScreen
  readonly liveness: ReplicaLiveness
  readonly recovery: RecoveryPolicy
  readonly settler: Settler | undefined
  /** Reads each key's balance and, after a batch reverted whole, whether the settler still allows it. */
  readonly keyReads: KeyReads
  readonly logger: Log
  readonly rowEnds?: RowEndAlerts
  /** One for the replica (docs/ARCHITECTURE.md §5.7): a payer that cost one lane gas is refused in every lane. */
  readonly penalties: PenaltyBox
  /** The settler's `itemGasLimit`, when there is one. */
  readonly itemGasLimit: bigint | undefined
  /** The payment mechanism of the route's chain family, over one lane's ports (evm/evm-mechanism.ts). */
  readonly mechanismOf: (lane: LanePorts) => LaneMechanism
}

/** A lane's ports, from which its payment mechanism is made. */
export type LanePorts = Omit<SettleDeps, 'mechanism' | 'submissions'> &
  RecoveryDeps &
  Pick<SharedLaneDeps, 'signatures' | 'screen' | 'settler'>

/**
 * One signing key's lane (docs/ARCHITECTURE.md §5.8): its submitter (nonce allocator, send lane, receipt watcher), its
 * submission queue (batches of its own transactions), its replica lock and its recovery passes, which run one after
 * another. To the domain a lane is only other deps: `policy.facilitator` is its account, the rows it claims its own.
 */
export class Lane {
  private lanePorts: SettleDeps & RecoveryDeps
  /** The chain family's mechanism for this key: its settles', submissions', recovery's and replacements'. */
  private readonly mechanism: LaneMechanism
  /** Settles in this lane from their pick to their answer: what the lane picker balances. */
  private settling = 0
  /** Its number among the lanes of its replica lock (one per token of the network). */
  private readonly laneOfGate: number
  /** Backs off a key refused for itself (docs/ARCHITECTURE.md §5.8). */
  readonly breaker = new KeyBreaker()
  /** The key's ETH against its next transaction: a key that cannot pay is skipped. */
  readonly funds: KeyFunds

  constructor(
    readonly account: Address,
    readonly gate: ReplicaLockGate,
    submitter: TransferSubmitter,
    shared: SharedLaneDeps,
  ) {
    const { settler, keyReads, logger, itemGasLimit, mechanismOf, ...ports } = shared
    this.laneOfGate = gate.register()
    this.funds = new KeyFunds(keyReads, account)
    const key = guardKey(submitter, account, this.funds, keyReads, settler, {
      refused: (reason) => {
        const backoffMs = this.breaker.trip()
        logger.warn(
          { facilitator: account, backoffMs },
          `${reason}; this key is skipped for ${backoffMs} ms, then given one settle`,
        )
      },
      accepted: () => this.breaker.succeeded(),
      notSettler: () => {
        logger.error(
          { facilitator: account, settler: settler?.address },
          `the batch settler no longer lets ${account} settle (isSettler false): its payments go alone; call setSettler(${account}, true) on it from its owner`,
        )
      },
    })
    const lanePorts: LanePorts = {
      ...ports,
      ...(itemGasLimit === undefined ? {} : { itemGasLimit }),
      policy: { ...shared.policy, facilitator: account },
      submitter: gate.guard(key.submitter),
      settler,
    }
    const mechanism = mechanismOf(lanePorts)
    this.mechanism = mechanism
    this.lanePorts = { ...lanePorts, mechanism, submissions: mechanism.submissions }
    submitter.onStalled?.((txHash) => this.replaceStalled(txHash, logger))
  }

  /** A stalled transaction of the key replaced at once, in turn with the passes (each lane hears; one replaces). */
  private replaceStalled(txHash: Hex, logger: Log): void {
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

  get deps(): SettleDeps & RecoveryDeps {
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
    return this.breaker.allows && this.funds.canPay
  }

  /**
   * Settles in this lane; `keyRefused`: it failed because its own transaction was refused for the key (nothing was
   * sent), as its failure says, not because another settle of the lane tripped the key meanwhile.
   */
  readonly settle = async (request: PaymentRequest, options: SettleOptions) => {
    const probe = this.breaker.enter()
    this.settling++
    try {
      const result = await settlePayment(request, options)(this.deps)()
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
