import type { FacilitatorPolicy } from '../model/payment.js'
import type { Clock } from '../ports/clock.js'
import type { PayerExposure } from '../ports/payer-exposure.js'
import type { ReplicaLiveness } from '../ports/replica-liveness.js'
import type { SettlementJournal } from '../ports/settlement-journal.js'
import type { TokenReader } from '../ports/token-reader.js'
import type { TransferSubmitter } from '../ports/transfer-submitter.js'

export interface RecoveryDeps {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  readonly journal: SettlementJournal
  readonly submitter: TransferSubmitter
  readonly token: TokenReader
  readonly liveness: ReplicaLiveness
  readonly recovery: RecoveryPolicy
  readonly exposure: PayerExposure
}

export interface RecoveryPolicy {
  /** Rows younger than this are left to the request that is still handling them. [10 s] */
  readonly minAgeMs: number
  /** A `claimed` row with no attempt this old was abandoned by its claimant. [30 s] */
  readonly claimTimeoutMs: number
  /** An attempt unmined this long gets a replacement with raised fees. [15 s] */
  readonly replaceAfterMs: number
  /** Rows per page of a pass (a pass reads every eligible row). [100] */
  readonly batchSize: number
}

/** What one row came to. */
export type RowOutcome =
  | 'skipped-owner-alive'
  | 'released-abandoned-claim'
  | 'mined'
  | 'settled-elsewhere'
  | 'released-nonce-consumed'
  /** A settler batch mined but reverted as a whole: nothing of it moved, the authorization may be claimed again. */
  | 'released-batch-reverted'
  | 'replaced'
  /** A reorged row whose nonce another transaction took, signed again at a new one (docs/ARCHITECTURE.md §5.6). */
  | 'resigned'
  | 'rebroadcast'
  | 'waiting'
  | 'stale'
  | 'failed'

export interface RecoveryReport {
  readonly examined: number
  /** Nonces of this replica's account that no recorded transaction held, filled so later ones can be mined. */
  readonly noncesFilled: ReadonlyArray<bigint>
  readonly outcomes: Readonly<Partial<Record<RowOutcome, number>>>
}

