import type { Clock } from '../../ports/clock.js'
import type { ClaimsJournal, SettlementLookups } from '../../ports/settlement-journal.js'
import type { Submission as CoreSubmission, SubmissionResult } from '../../ports/submissions.js'
import type { BatchItem, TransferSubmitter } from '../ports/transfer-submitter.js'
import type { PenaltyBox } from '../../penalties/penalty-box.js'

export type { Sent, SubmissionResult } from '../../ports/submissions.js'

/** A payment submitted to this mechanism's queue: its item is the EVM mechanism's own. */
export type Submission = CoreSubmission & { readonly item: BatchItem }

/** Every item a settle submits to this queue came from this mechanism's verify (evm-mechanism.ts `validPayment`). */
export const ownSubmission = (submission: CoreSubmission): Submission => submission as Submission

export interface GroupDeps {
  readonly journal: ClaimsJournal & SettlementLookups
  readonly submitter: TransferSubmitter
  readonly clock: Clock
  /** Told what each receipt's failed payments of payers with code cost (judge-receipt.ts) [none]. */
  readonly penalties?: PenaltyBox
  /** The settler's per-item bound, for `penalties` [300 000]. */
  readonly itemGasLimit?: bigint
}

/** Each payment's own answer, in the group's order: they may come at different times (§5.4, each its own wait). */
export type GroupResults = ReadonlyArray<Promise<SubmissionResult>>

/** A group on its way: `recorded` once the journal has answered (the next group may then be signed), then its results. */
export interface GroupSubmission {
  readonly recorded: Promise<void>
  /** Each payment's result, in order. */
  readonly results: Promise<GroupResults>
}
