import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type {
  Attempt,
  ClaimRef,
  ClaimResult,
  MinedAndMarked,
  NewSettlement,
  SettledElsewhereTransition,
  Transition,
} from '../settlement-row.js'
import type { MinedTransaction, TransferReceipt } from '../transaction-receipt.js'

/** `markMined`'s two forms: with an answer id, the same write takes the row's success mark when no answer holds it. */
export interface MarkMined {
  (ref: ClaimRef, receipt: TransferReceipt): TE.TaskEither<JournalUnavailable, Transition>
  (ref: ClaimRef, receipt: TransferReceipt, answerId: string): TE.TaskEither<JournalUnavailable, MinedAndMarked>
}

/**
 * What a settle writes (docs/ARCHITECTURE.md §5.2–5.4): one claim per payment, its attempts recorded before they are
 * broadcast, its receipt or its release, and the one answer that says success.
 */
export interface ClaimsJournal {
  readonly claim: (settlement: NewSettlement) => TE.TaskEither<JournalUnavailable, ClaimResult>
  /** `claimed → submitted` with the first attempt; must be stored before the attempt is broadcast. */
  readonly markSubmitted: (ref: ClaimRef, attempt: Attempt) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `claimed → submitted` for every row of a settler batch at once, row `refs[i]` being item `i` of `attempt`: all
   * are stored or none (`stale` when any row is not `claimed` in that claim any more). Before the batch is broadcast.
   */
  readonly markBatchSubmitted: (
    refs: ReadonlyArray<ClaimRef>,
    attempt: Attempt,
  ) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `submitted → confirmed | reverted`, guarded: the receipt's transaction must be one of the row's attempts. With an
   * `answerId`, the same write also takes the row's one success mark (`markSuccessAnswered`) when no answer holds it.
   */
  readonly markMined: MarkMined
  /**
   * `claimed | submitted → released`: nothing of this claim will be mined; the authorization may be claimed again.
   * `mined`: the settler batch that reverted whole, whose block is then watched as a reverted row's (a reorg may
   * re-mine it successfully, docs/ARCHITECTURE.md §5.6).
   */
  readonly markReleased: (
    ref: ClaimRef,
    from: 'claimed' | 'submitted',
    reason: string,
    mined?: MinedTransaction,
  ) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `markReleased` for every row of a settler batch in one statement: all that are still `from` in their claim, or none
   * (a failure writes nothing). Answers the ids released. A batch's transaction carries every item: were some rows
   * released and others left `submitted`, recovery could send it again and pay a released row's authorization
   * unrecorded.
   */
  readonly markBatchReleased: (
    refs: ReadonlyArray<ClaimRef>,
    from: 'claimed' | 'submitted',
    reason: string,
    mined?: MinedTransaction,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<string>>
  /**
   * `submitted → confirmed` without a receipt of ours: the authorization was used on-chain by another
   * transaction (docs/ARCHITECTURE.md §5.5), so the payment happened and no attempt of this row can be mined. The row
   * names that transaction (`by`) and the log that paid it; a log another row names already: `payment-log-taken`.
   */
  readonly markSettledElsewhere: (
    ref: ClaimRef,
    note: string,
    by?: MinedTransaction,
  ) => TE.TaskEither<JournalUnavailable, SettledElsewhereTransition>
  /**
   * Records that the answer `answerId` says `success` for row `id`, before that answer leaves: `applied` for the first
   * call of the row's life, whatever its claim or state; `stale`, writing nothing, for every later one.
   */
  readonly markSuccessAnswered: (id: string, answerId: string) => TE.TaskEither<JournalUnavailable, Transition>
}
