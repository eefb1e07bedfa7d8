import * as E from 'fp-ts/lib/Either.js'
import {
  chainUnavailable,
  journalUnavailable,
  type InfrastructureFailure,
  type JournalUnavailable,
} from '../../model/failures.js'
import type { Address, FacilitatorPolicy } from '../../model/payment.js'
import type { Clock } from '../../ports/clock.js'
import type { RecoveryReport } from '../../ports/recovery.js'
import type { RequestReader } from '../../ports/request-reader.js'
import type { LanePorts, SigningKey } from '../../ports/signing-key.js'
import { lookUpSettlement, type SettlementQuery } from '../look-up-settlement.js'
import type { SettleOptions } from '../settle/settle-context.js'
import type { SettleOutcome } from '../settle/settle-outcome.js'
import { Lane } from './lane.js'
import { makeLanePicker } from './lane-picker.js'
import type { ReplicaLockGate } from './replica-lock-gate.js'

/** What a route's facilitator is made of: its chain family's keys and request reader, and what its lanes share. */
export interface FacilitatorDeps<R, P> extends LanePorts {
  /** One per signing key, in order; `gates[i]` is the lock of `keys[i]`. */
  readonly keys: ReadonlyArray<SigningKey<P>>
  readonly gates: ReadonlyArray<ReplicaLockGate>
  /** Reads a decoded request as a payment, and the one key that may send it, if only one may. */
  readonly readRequest: RequestReader<R, P>
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
export class Facilitator<R, P> {
  readonly lanes: ReadonlyArray<Lane<P>>
  private readonly pick = makeLanePicker()
  private drained: Array<() => void> = []

  readonly policy: FacilitatorPolicy
  private readonly clock: Clock
  private readonly readRequest: RequestReader<R, P>

  constructor(deps: FacilitatorDeps<R, P>) {
    const { keys, gates, readRequest, ...shared } = deps
    this.policy = deps.policy
    this.clock = deps.clock
    this.readRequest = readRequest
    this.lanes = keys.map((key, i) => new Lane(key, gates[i]!, shared))
  }

  private get first(): Lane<P> {
    return this.lanes[0]!
  }

  readonly verify = (request: R) => async () => {
    const read = await this.readRequest(request, 'verify')
    if (E.isLeft(read)) return E.right({ _tag: 'Invalid' as const, ...read.left })
    return this.first.verify(read.right.payment)()
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
    (request: R, options: SettleOptions) => async (): Promise<E.Either<InfrastructureFailure, SettleOutcome>> => {
      const read = await this.readRequest(request, 'settle')
      if (E.isLeft(read)) return E.right({ _tag: 'Refused', payer: read.left.payer, refusal: read.left.failure })
      const { payment, sender } = read.right
      return sender === undefined
        ? this.settleOnAnyLane(payment, options)
        : this.settleOnLaneOf(sender, payment, options)
    }

  /**
   * A payment only one key may send (an `upto` one: the key its witness names, the only sender its proxy accepts;
   * docs/ARCHITECTURE.md §5.8) goes to that key's lane, never another. That key unable to settle here now (its lock held
   * by another replica, its funds short), the answer is a 503 before anything is claimed.
   */
  private async settleOnLaneOf(
    key: Address,
    payment: P,
    options: SettleOptions,
  ): Promise<E.Either<InfrastructureFailure, SettleOutcome>> {
    const lane = this.lanes.find((l) => l.account === key)
    if (lane === undefined || !lane.available || !lane.healthy) {
      const where = lane === undefined ? 'another replica holds' : 'may not settle on this replica now'
      return E.left(chainUnavailable(`the upto payment must be sent by ${key}, which ${where}; try again`))
    }
    await lane.fees.refresh()
    try {
      return (await lane.settle(payment, options)).result
    } finally {
      if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve())
    }
  }

  private readonly settleOnAnyLane = async (payment: P, options: SettleOptions) => {
    // Each key's balance is known before its first settle; afterwards it is read again in the background.
    await Promise.all(this.lanes.map((lane) => lane.fees.refresh()))
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
