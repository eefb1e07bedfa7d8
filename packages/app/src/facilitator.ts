import {
  finishSettlements,
  journalUnavailable,
  lookUpSettlement,
  makeSubmissionQueue,
  recoverSettlements,
  settlePayment,
  verifyPayment,
  type Clock,
  type FacilitatorPolicy,
  type PayerExposure,
  type PaymentRequest,
  type RecoveryDeps,
  type RecoveryPolicy,
  type SettlementQuery,
  type ReplicaLiveness,
  type SettleDeps,
  type SettleOptions,
  type SettlementJournal,
  type SettlementKey,
  type SignatureVerifier,
  type TokenReader,
  type TransferSubmitter,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { inject, injectable } from 'inversify'
import { ReplicaLockGate } from './replica-lock-gate.js'
import type { Settler } from './settler-check.js'
import * as tokens from './tokens.js'

/**
 * The use cases over the bound ports; counts settles in flight so that shutdown can wait for them. Settling,
 * recovering and signing stop while this replica's advisory lock is lost (docs/ARCHITECTURE.md §5.5).
 */
@injectable()
export class Facilitator {
  private readonly deps: SettleDeps & RecoveryDeps
  private inFlight = 0
  private drained: Array<() => void> = []
  /** The recovery pass under way: passes run one after another, never side by side. */
  private pass: Promise<unknown> = Promise.resolve()

  constructor(
    @inject(tokens.FacilitatorPolicy) readonly policy: FacilitatorPolicy,
    @inject(tokens.Clock) clock: Clock,
    @inject(tokens.SignatureVerifier) signatures: SignatureVerifier,
    @inject(tokens.TokenReader) token: TokenReader,
    @inject(tokens.PayerExposure) exposure: PayerExposure,
    @inject(tokens.SettlementJournal) journal: SettlementJournal,
    @inject(tokens.TransferSubmitter) submitter: TransferSubmitter,
    @inject(tokens.ReplicaLiveness) liveness: ReplicaLiveness,
    @inject(tokens.RecoveryPolicy) recovery: RecoveryPolicy,
    @inject(tokens.ReplicaLockGate) private readonly lock: ReplicaLockGate,
    @inject(tokens.Settler) settler: Settler | undefined,
  ) {
    const guarded = lock.guard(submitter)
    const submissions = makeSubmissionQueue({ journal, submitter: guarded, clock }, { maxItems: settler?.maxItems ?? 1, windowMs: settler?.windowMs })
    this.deps = { policy, clock, signatures, token, exposure, journal, submitter: guarded, submissions, liveness, recovery }
  }

  readonly verify = (request: PaymentRequest) => verifyPayment(request)(this.deps)

  readonly lookUp = (query: SettlementQuery) => lookUpSettlement(query)(this.deps)

  readonly settle = (request: PaymentRequest, options: SettleOptions) => async () => {
    // Refused before anything is claimed: another replica may be finishing this replica's rows.
    const refusal = this.lock.settleRefusal()
    if (refusal !== undefined) return E.left(journalUnavailable(refusal))
    this.inFlight++
    try {
      return await settlePayment(request, options)(this.deps)()
    } finally {
      this.inFlight--
      if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve())
    }
  }

  /**
   * At start-up this replica holds its lock, so the process that handled its unfinished rows is gone: they are
   * reconciled at once, before any new transaction takes a nonce.
   */
  readonly recover = ({ startUp = false } = {}) => {
    const run = async () => {
      const era = this.lock.currentEra
      if (!this.lock.lockHeld) return E.left(journalUnavailable(this.lock.settleRefusal() ?? 'replica lock not held'))
      const report = await recoverSettlements(startUp ? { ...this.deps, recovery: { ...this.deps.recovery, minAgeMs: 0, claimTimeoutMs: 0 } } : this.deps)()
      if (E.isRight(report)) this.lock.recovered(era)
      return report
    }
    const next = this.pass.then(run)
    this.pass = next.catch(() => undefined)
    return next
  }

  /**
   * Recovery for these rows at once, whatever their age (docs/ARCHITECTURE.md §5.6: what a reorg sent back), in turn
   * with the passes; answers the rows still in flight after it (all of them while the lock is lost).
   */
  readonly finish = (keys: ReadonlyArray<SettlementKey>): Promise<ReadonlyArray<SettlementKey>> => {
    const run = async () => {
      if (!this.lock.lockHeld) return keys
      const report = await finishSettlements(keys)(this.deps)()
      return E.isRight(report) ? report.right.stillSubmitted : keys
    }
    const next = this.pass.then(run)
    this.pass = next.catch(() => undefined)
    return next
  }

  /** Resolves once no settle is in flight, or after `timeoutMs`. */
  readonly drain = (timeoutMs: number): Promise<void> =>
    this.inFlight === 0
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, timeoutMs)
          this.drained.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
}
