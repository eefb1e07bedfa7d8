import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { ClaimRef, Settlement, Transition, UnfinishedCursor } from '../settlement-row.js'
import type { TransferReceipt } from '../transaction-receipt.js'

/**
 * Released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5): a node that said it held none
 * of a row's attempts may be wrong (another node behind the same address held one), and an earlier claim's attempt
 * outlives a caller's retry that took the row back, so recovery watches each such row until it is judged.
 */
export interface ReleasedRowsJournal {
  /**
   * `released` rows with a lone attempt in any claim, none of a settler batch in the current one, and no block
   * recorded, not judged yet (`endReleasedWatch`), oldest change first (then by id), after `after`, up to `limit`.
   * Their `attempts` are the current claim's.
   */
  readonly findReleasedToJudge: (
    limit: number,
    after?: UnfinishedCursor,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<Settlement>>
  /**
   * `released → confirmed` at the block of `receipt`, guarded: the row is still `released` in this claim (a row
   * claimed again is `stale`: the new claim's own transaction decides), records no block, is not judged, and the
   * receipt's transaction is a lone attempt of the row, of this claim or an earlier one (else `stale`).
   */
  readonly markReleasedMined: (ref: ClaimRef, receipt: TransferReceipt) => TE.TaskEither<JournalUnavailable, Transition>
  /** Judged: no attempt of this claim transferred anything (`watchEndedAt` set); `stale` if no longer so released. */
  readonly endReleasedWatch: (ref: ClaimRef) => TE.TaskEither<JournalUnavailable, Transition>
}
