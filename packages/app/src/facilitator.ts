import {
  journalUnavailable,
  lookUpSettlement,
  verifyPayment,
  type Address,
  type Clock,
  type FacilitatorPolicy,
  type PayerExposure,
  type PenaltyBox,
  type PaymentRequest,
  type RecoveryPolicy,
  type RecoveryReport,
  type SettlementQuery,
  type ReplicaLiveness,
  type SettleOptions,
  type SettlementJournal,
  type SignatureVerifier,
  type TokenReader,
  type JournalUnavailable,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { inject, injectable } from 'inversify'
import { Lane } from './lane.js'
import { makeLanePicker } from './lane-picker.js'
import type { ReplicaLockGate } from './replica-lock-gate.js'
import type { Settler } from './settler-check.js'
import * as tokens from './tokens.js'

/** One lane's recovery pass, named by its account. */
export interface LaneRecovery {
  readonly account: Address
  readonly report: E.Either<JournalUnavailable, RecoveryReport>
}

/**
 * The use cases over the bound ports, one lane per signing key (docs/ARCHITECTURE.md §5.8); counts settles in flight
 * so that shutdown can wait for them. A lane settles, recovers and signs only while its key's advisory lock is held
 * (§5.5). Verify and lookups run on the first lane: verify's trials are sent from the first key's account.
 */
@injectable()
export class Facilitator {
  readonly lanes: ReadonlyArray<Lane>
  private readonly pick = makeLanePicker()
  private drained: Array<() => void> = []

  constructor(
    @inject(tokens.FacilitatorPolicy) readonly policy: FacilitatorPolicy,
    @inject(tokens.Clock) clock: Clock,
    @inject(tokens.SignatureVerifier) signatures: SignatureVerifier,
    @inject(tokens.TokenReader) token: TokenReader,
    @inject(tokens.PayerExposure) exposure: PayerExposure,
    @inject(tokens.SettlementJournal) journal: SettlementJournal,
    @inject(tokens.TransferSubmitters) submitters: tokens.SigningSubmitters,
    @inject(tokens.ReplicaLiveness) liveness: ReplicaLiveness,
    @inject(tokens.RecoveryPolicy) recovery: RecoveryPolicy,
    @inject(tokens.ReplicaLockGates) gates: ReadonlyArray<ReplicaLockGate>,
    @inject(tokens.Settler) settler: Settler | undefined,
    @inject(tokens.PenaltyBox) penalties: PenaltyBox,
    @inject(tokens.SettlerItemGasLimit) itemGasLimit: bigint | undefined,
  ) {
    const shared = { policy, clock, signatures, token, exposure, journal, liveness, recovery, settler, penalties, itemGasLimit }
    this.lanes = submitters.map(({ account, submitter }, i) => new Lane(account, gates[i]!, submitter, shared))
  }

  private get first(): Lane {
    return this.lanes[0]!
  }

  readonly verify = (request: PaymentRequest) => verifyPayment(request)(this.first.deps)

  readonly lookUp = (query: SettlementQuery) => lookUpSettlement(query)(this.first.deps)

  /** Settles in flight in every lane. */
  get inFlight(): number {
    return this.lanes.reduce((sum, lane) => sum + lane.inFlight, 0)
  }

  /** The lane is picked before anything is claimed: the row's owner is its account. */
  readonly settle = (request: PaymentRequest, options: SettleOptions) => async () => {
    const picked = this.pick(this.lanes)
    // No lane holds its lock: another replica may be finishing our rows (docs/ARCHITECTURE.md §5.5).
    if (picked === undefined) return E.left(journalUnavailable(this.first.gate.settleRefusal() ?? 'no signing key may settle now'))
    try {
      return await this.lanes[picked]!.settle(request, options)
    } finally {
      if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve())
    }
  }

  /** A recovery pass in every lane (each lane's passes run one after another; lanes side by side). */
  readonly recover = (options: { startUp?: boolean } = {}): Promise<ReadonlyArray<LaneRecovery>> =>
    Promise.all(this.lanes.map(async (lane) => ({ account: lane.account, report: await lane.recover(options) })))

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
