import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../model/failures.js'
import type { TxHash } from '../model/payment.js'
import type { PaymentMechanism, PaymentReader } from './payment-mechanism.js'
import type { FinishReport, RecoveryReport, RowOutcome } from './recovery.js'
import type { SettlementKey } from './settlement-row.js'
import type { SubmissionQueue } from './submissions.js'

/**
 * A chain family's mechanism for one signing key's lane (docs/ARCHITECTURE.md §5.8): what its settles ask
 * (`PaymentMechanism`, and of each payment `PaymentReader`'s), and what the lane runs for its key.
 */
export interface LaneMechanism<P> extends PaymentMechanism, PaymentReader<P> {
  /** Signs, records and broadcasts this key's claimed payments, alone or together (docs/ARCHITECTURE.md §5.3, §5.7). */
  readonly submissions: SubmissionQueue
  /**
   * One recovery pass over this key's rows in flight (docs/ARCHITECTURE.md §5.5); `startUp`: every row at once, whatever
   * its age (the process that handled them is gone).
   */
  readonly recover: (options: { readonly startUp: boolean }) => TE.TaskEither<JournalUnavailable, RecoveryReport>
  /** Recovery for these rows at once, whatever their age (what a reorg sent back, §5.6). */
  readonly finish: (keys: ReadonlyArray<SettlementKey>) => TE.TaskEither<JournalUnavailable, FinishReport>
  /** A transaction of this key the chain left unmined while later ones wait behind it, replaced at once. */
  readonly replaceStalled: (txHash: TxHash) => TE.TaskEither<InfrastructureFailure, RowOutcome>
  /** Tells `listener` of each transaction of this key the chain left unmined while later ones wait behind it. */
  readonly onStalled?: (listener: (txHash: TxHash) => void) => void
}
