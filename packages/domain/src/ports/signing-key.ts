import type { FacilitatorPolicy, Address } from '../model/payment.js'
import type { PenaltyBox } from '../penalties/penalty-box.js'
import type { AddressScreen } from './address-screen.js'
import type { Clock } from './clock.js'
import type { Log } from './log.js'
import type { PayerExposure } from './payer-exposure.js'
import type { LaneMechanism } from './lane-mechanism.js'
import type { TransactionReceipts } from './payment-ends.js'
import type { RecoveryPolicy, RowEndAlerts } from './recovery.js'
import type { ReplicaLiveness } from './replica-liveness.js'
import type { SettlementJournal } from './settlement-journal.js'

/** What the core gives every lane's mechanism: the policy (its `facilitator`: the lane's account) and the ports. */
export interface LanePorts {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  /** One for the replica: rule 9 counts a payer's amounts in flight in every lane. */
  readonly exposure: PayerExposure
  readonly journal: SettlementJournal
  /** The operator's deny list (rule S1). */
  readonly screen: AddressScreen
  readonly liveness: ReplicaLiveness
  readonly recovery: RecoveryPolicy
  readonly rowEnds?: RowEndAlerts
  /** One for the replica (docs/ARCHITECTURE.md §5.7): a payer that cost one lane gas is refused in every lane. */
  readonly penalties: PenaltyBox
  readonly logger: Log
}

/** Whether a lane may sign now: its replica holds the key's lock (use-cases/lanes/replica-lock-gate.ts). */
export interface SigningLock {
  readonly lockHeld: boolean
  /** Why a settle is refused now, or undefined when it may go on. */
  readonly settleRefusal: () => string | undefined
}

/** What a key's lane hears of its transactions, for its breaker (use-cases/lanes/key-health.ts). */
export interface KeyEvents {
  /** The key was refused for itself (e.g. it cannot pay the fee): its lane is skipped for a while. */
  readonly refused: (reason: string) => void
  /** A transaction of the key was accepted. */
  readonly accepted: () => void
}

/** The key's own funds against the fee of its next transaction, as its chain family reads them. */
export interface KeyFees {
  /** Whether the key can pay its next transaction, as far as is known (unknown: yes, the node will say). */
  readonly canPay: boolean
  /** Reads the balance if it was never read (awaited) or is stale (in the background). */
  readonly refresh: () => Promise<void>
}

/** One signing key's lane as its chain family opens it. */
export interface OpenedLane<P> {
  readonly mechanism: LaneMechanism<P>
  readonly fees: KeyFees
  /** The key's transactions' receipts (a retry awaiting its row, the finality watcher read them). */
  readonly receipts: TransactionReceipts
}

/**
 * One signing key of a route (docs/ARCHITECTURE.md §5.8), as its chain family offers it: a lane opens it over the core's
 * ports, its lock (nothing is signed while the lock is lost) and its breaker's events.
 */
export interface SigningKey<P> {
  readonly account: Address
  readonly open: (lane: {
    readonly ports: LanePorts
    readonly lock: SigningLock
    readonly events: KeyEvents
  }) => OpenedLane<P>
}
