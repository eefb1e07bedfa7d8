import type { FacilitatorPolicy } from '../../model/payment.js'
import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { Clock } from '../../ports/clock.js'
import type { PayerExposure } from '../../ports/payer-exposure.js'
import type { ReplicaLiveness } from '../../ports/replica-liveness.js'
import type { RecoveryPolicy, RowEndAlerts } from '../../ports/recovery.js'
import type { SettlementJournal } from '../../ports/settlement-journal.js'
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
  /** Told of every row that ends `cancelled` or `unsettleable` here: an operator must hear of it (a log, a metric). */
  readonly rowEnds?: RowEndAlerts
  /**
   * Told the penalties of each failed receipt recovery records (judge-receipt.ts); suspends a payer with code whose
   * batch item failed (docs/ARCHITECTURE.md §5.7) [none].
   */
  readonly penalties?: PenaltyBox
  /** The settler's per-item bound, to tell an item that burnt it [300 000, the deployment default]. */
  readonly itemGasLimit?: bigint
}

export type { FinishReport, RecoveryPolicy, RecoveryReport, RowEndAlerts, RowOutcome } from '../../ports/recovery.js'
