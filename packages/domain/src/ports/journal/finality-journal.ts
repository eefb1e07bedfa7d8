import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { Address } from '../../model/payment.js'
import type { ClaimRef, OwnerRows, RecordedBlock, Settlement, Transition } from '../settlement-row.js'
import type { TransferReceipt } from '../transaction-receipt.js'

/** What the finality watcher reads and writes (docs/ARCHITECTURE.md §5.6): rows by block, final, reorged, mined again. */
export interface FinalityJournal {
  /**
   * `confirmed → final` for `owner`'s rows recorded in these blocks (height and hash both match: a row whose block
   * was replaced is not moved). Answers the ids moved.
   */
  readonly markFinal: (
    owner: Address,
    blocks: ReadonlyArray<RecordedBlock>,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<string>>
  /**
   * `confirmed | reverted | cancelled | final → submitted`, and a `released` row that records a block (a settler
   * batch that reverted whole) in the same claim: the receipt was lost to a reorg; the row names its latest attempt
   * again. A row that was answered success (`confirmed`, `final`) records the time (`reorgedAt`) (docs/ARCHITECTURE.md
   * §5.6).
   */
  readonly markReorged: (ref: ClaimRef) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `confirmed | final | reverted | cancelled → confirmed` (and a `released` row that records a block) at the block
   * of `receipt`: the row's transaction (or one of its attempts) was mined again, successfully, after a reorg.
   */
  readonly markMinedAgain: (ref: ClaimRef, receipt: TransferReceipt) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * The distinct blocks of `owner`'s `confirmed` rows, of its `final` rows at or above `finalFrom` (still watched for
   * a finality violation) and of its still watched `reverted`, `cancelled` and `released` rows (a reorg may re-mine
   * their transaction successfully), lowest first, up to `limit`.
   */
  readonly blocksToWatch: (
    owner: Address,
    finalFrom: bigint,
    limit: number,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<RecordedBlock>>
  /**
   * Ends the watch of `owner`'s `reverted`, `cancelled` and `released` rows recorded below `below` (as deep as a final
   * row stops being watched): their nonces leave `accountNoncesInFlight`. Answers the ids.
   */
  readonly endWatch: (owner: Address, below: bigint) => TE.TaskEither<JournalUnavailable, ReadonlyArray<string>>
  /** `owner`'s watched rows (as `blocksToWatch`, final rows whatever their height) recorded in this block. */
  readonly findInBlock: (
    owner: Address,
    block: RecordedBlock,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<Settlement>>
  /**
   * Every owner with rows still to follow — `claimed`, `submitted`, `confirmed`, still watched `reverted`,
   * `cancelled` and `released` ones, and `final` ones at or above `finalFrom` when given — and how many
   * (docs/ARCHITECTURE.md §5.8: a key no longer running).
   */
  readonly ownersWithOpenRows: (finalFrom?: bigint) => TE.TaskEither<JournalUnavailable, ReadonlyArray<OwnerRows>>
}
