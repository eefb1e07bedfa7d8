import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../model/failures.js'
import type { ClaimRef, Settlement, Transition, UnfinishedCursor } from './settlement-row.js'
import type { TransferReceipt } from './transfer-submitter.js'

/**
 * Released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5): a node that said it held none
 * of a row's attempts may be wrong (another node behind the same address held one), so recovery watches each such
 * row until its account's mined nonce passes its attempts', then judges it once from the receipts.
 */
export interface ReleasedRowsJournal {
  /**
   * `released` rows whose current claim has lone attempts (no settler batch's) and no block recorded, not judged yet
   * (`endReleasedWatch`), oldest change first (then by id), after `after`, up to `limit`.
   */
  readonly findReleasedToJudge: (
    limit: number,
    after?: UnfinishedCursor,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<Settlement>>
  /**
   * `released → confirmed` at the block of `receipt`, guarded: the row is still `released` in this claim (a row
   * claimed again is `stale`: the new claim's own transaction decides), records no block, and the receipt's
   * transaction is one of the claim's attempts.
   */
  readonly markReleasedMined: (ref: ClaimRef, receipt: TransferReceipt) => TE.TaskEither<JournalUnavailable, Transition>
  /** Judged: no attempt of this claim transferred anything (`watchEndedAt` set); `stale` if no longer so released. */
  readonly endReleasedWatch: (ref: ClaimRef) => TE.TaskEither<JournalUnavailable, Transition>
}
