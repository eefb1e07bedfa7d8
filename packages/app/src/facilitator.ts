import {
  chainUnavailable,
  journalUnavailable,
  lookUpSettlement,
  paymentOf,
  unixSeconds,
  verifyPayment,
  type Address,
  type AnyPaymentRequest,
  type InfrastructureFailure,
  type PaymentPhase,
  type PaymentRequest,
  type SettleOutcome,
  type Clock,
  type FacilitatorPolicy,
  type PayerExposure,
  type PenaltyBox,
  type RecoveryPolicy,
  type RecoveryReport,
  type RowEndAlerts,
  type SettlementQuery,
  type ReplicaLiveness,
  type SettleOptions,
  type SettlementJournal,
  type SignatureVerifier,
  type TokenReader,
  type JournalUnavailable,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { inject, injectable } from 'inversify'
import type { Logger } from 'pino'
import { Lane } from './lane.js'
import type { ReplicaLockGate } from './replica-lock-gate.js'
import type { Settler } from './settler-check.js'
import * as tokens from './tokens.js'

/** What the picker sees of a lane: its settles in flight, and whether it may settle (its replica lock is held). */
export interface LaneLoad {
  readonly inFlight: number
  readonly available: boolean
}

/**
 * docs/ARCHITECTURE.md §5.8: the least loaded available lane (fewest settles in flight); among equals, the first at or
 * after `cursor`, going round, so that equal lanes take turns. Undefined when no lane is available.
 */
export const pickLane = (lanes: ReadonlyArray<LaneLoad>, cursor: number): number | undefined => {
  let best: number | undefined
  for (let step = 0; step < lanes.length; step++) {
    const index = (cursor + step) % lanes.length
    const lane = lanes[index]!
    if (lane.available && (best === undefined || lane.inFlight < lanes[best]!.inFlight)) best = index
  }
  return best
}

/** `pickLane` with its own cursor, which moves past each lane picked. */
export const makeLanePicker = () => {
  let cursor = 0
  return (lanes: ReadonlyArray<LaneLoad>): number | undefined => {
    const picked = pickLane(lanes, cursor)
    if (picked !== undefined) cursor = (picked + 1) % lanes.length
    return picked
  }
}

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
    @inject(tokens.Clock) private readonly clock: Clock,
    @inject(tokens.SignatureVerifier) signatures: SignatureVerifier,
    @inject(tokens.TokenReader) token: TokenReader,
    @inject(tokens.PayerExposure) exposure: PayerExposure,
    @inject(tokens.SettlementJournal) journal: SettlementJournal,
    @inject(tokens.TransferSubmitters) submitters: tokens.SigningSubmitters,
    @inject(tokens.ReplicaLiveness) liveness: ReplicaLiveness,
    @inject(tokens.RecoveryPolicy) recovery: RecoveryPolicy,
    @inject(tokens.ReplicaLockGates) gates: ReadonlyArray<ReplicaLockGate>,
    @inject(tokens.Settler) settler: Settler | undefined,
    @inject(tokens.Chain) chain: tokens.Chain,
    @inject(tokens.Logger) logger: Logger,
    @inject(tokens.RowEndAlerts) rowEnds: RowEndAlerts,
    @inject(tokens.PenaltyBox) penalties: PenaltyBox,
    @inject(tokens.SettlerItemGasLimit) itemGasLimit: bigint | undefined,
  ) {
    const ports = { policy, clock, signatures, token, exposure, journal, liveness, recovery, settler }
    const shared = { ...ports, keyReads: chain.keyReads, logger, rowEnds, penalties, itemGasLimit }
    this.lanes = submitters.map(({ account, submitter }, i) => new Lane(account, gates[i]!, submitter, shared))
  }

  private get first(): Lane {
    return this.lanes[0]!
  }

  /** The payment a request makes (a Permit2 one read onto the authorization fields, after its own rules). */
  private paymentOf(request: AnyPaymentRequest, phase: PaymentPhase) {
    return paymentOf(request, { policy: this.policy, now: unixSeconds(this.clock.now()), phase })
  }

  readonly verify = (request: AnyPaymentRequest) => {
    const payment = this.paymentOf(request, 'verify')
    if (E.isLeft(payment)) return TE.right({ _tag: 'Invalid' as const, ...payment.left })
    return verifyPayment(payment.right)(this.first.deps)
  }

  readonly lookUp = (query: SettlementQuery) => lookUpSettlement(query)(this.first.deps)

  /** Settles in flight in every lane. */
  get inFlight(): number {
    return this.lanes.reduce((sum, lane) => sum + lane.inFlight, 0)
  }

  /**
   * The lane is picked before anything is claimed: the row's owner is its account. A settle its key failed for itself
   * (too little ETH; docs/ARCHITECTURE.md §5.8) sent nothing and released its row: it is given to another lane, as a
   * caller's retry would be, at most once per lane.
   */
  readonly settle =
    (request: AnyPaymentRequest, options: SettleOptions) =>
    async (): Promise<E.Either<InfrastructureFailure, SettleOutcome>> => {
      const read = this.paymentOf(request, 'settle')
      if (E.isLeft(read)) return E.right({ _tag: 'Refused', payer: read.left.payer, refusal: read.left.failure })
      const payment = read.right
      const witnessKey = payment.payload.authorization.permit2?.facilitator
      return witnessKey === undefined
        ? this.settleOnAnyLane(payment, options)
        : this.settleOnLaneOf(witnessKey, payment, options)
    }

  /**
   * An `upto` payment is sent by the key its witness names, the only sender its proxy accepts (docs/ARCHITECTURE.md
   * §5.8): never another lane, never batched. That key unable to settle here now (its lock held by another replica, its
   * funds short), the answer is a 503 before anything is claimed.
   */
  private async settleOnLaneOf(
    key: Address,
    payment: PaymentRequest,
    options: SettleOptions,
  ): Promise<E.Either<InfrastructureFailure, SettleOutcome>> {
    const lane = this.lanes.find((l) => l.account === key)
    if (lane === undefined || !lane.available || !lane.healthy) {
      const why = lane === undefined ? 'is not a key of this facilitator' : 'may not settle on this replica now'
      return E.left(chainUnavailable(`the upto payment must be sent by ${key}, which ${why}; try again`))
    }
    await lane.funds.refresh()
    try {
      return (await lane.settle(payment, options)).result
    } finally {
      if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve())
    }
  }

  private readonly settleOnAnyLane = async (payment: PaymentRequest, options: SettleOptions) => {
    // Each key's balance is known before its first settle; afterwards it is read again in the background.
    await Promise.all(this.lanes.map((lane) => lane.funds.refresh()))
    try {
      for (let tries = 1; ; tries++) {
        // A key in trouble is skipped while another can settle; when none can, each is tried (the node's answer is the 503).
        const picked =
          this.pick(
            this.lanes.map((lane) => ({ inFlight: lane.inFlight, available: lane.available && lane.healthy })),
          ) ?? this.pick(this.lanes)
        // No lane holds its lock: another replica may be finishing our rows (docs/ARCHITECTURE.md §5.5).
        if (picked === undefined)
          return E.left(journalUnavailable(this.first.gate.settleRefusal() ?? 'no signing key may settle now'))
        const { result, keyRefused } = await this.lanes[picked]!.settle(payment, options)
        if (!keyRefused || tries >= this.lanes.length) return result
      }
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
          const cancel = this.clock.after(timeoutMs, resolve)
          this.drained.push(() => {
            cancel()
            resolve()
          })
        })
}
