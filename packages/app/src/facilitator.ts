import {
  lookUpSettlement,
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
  type SignatureVerifier,
  type TokenReader,
  type TransferSubmitter,
} from '@x402-facilitator/domain'
import { inject, injectable } from 'inversify'
import * as tokens from './tokens.js'

/** The use cases over the bound ports; counts settles in flight so that shutdown can wait for them. */
@injectable()
export class Facilitator {
  private readonly deps: SettleDeps & RecoveryDeps
  private inFlight = 0
  private drained: Array<() => void> = []

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
  ) {
    this.deps = { policy, clock, signatures, token, exposure, journal, submitter, liveness, recovery }
  }

  readonly verify = (request: PaymentRequest) => verifyPayment(request)(this.deps)

  readonly lookUp = (query: SettlementQuery) => lookUpSettlement(query)(this.deps)

  readonly settle = (request: PaymentRequest, options: SettleOptions) => async () => {
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
  readonly recover = ({ startUp = false } = {}) =>
    recoverSettlements(startUp ? { ...this.deps, recovery: { ...this.deps.recovery, minAgeMs: 0, claimTimeoutMs: 0 } } : this.deps)()

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
