import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../model/failures.js'
import type { Address, Hex } from '../model/payment.js'
import type { ReleasedRowsJournal } from './released-rows.js'
import type { MinedTransaction } from './token-reader.js'
import type { TransferReceipt } from './transfer-submitter.js'
import type {
  SettlementKey,
  NewSettlement,
  Attempt,
  Settlement,
  UnfinishedCursor,
  ClaimRef,
  ClaimResult,
  RecordedBlock,
  OwnerRows,
  Transition,
  SettledElsewhereTransition,
  MinedAndMarked,
} from './settlement-row.js'

export type {
  SettlementKey,
  NewSettlement,
  Attempt,
  Settlement,
  UnfinishedCursor,
  ClaimRef,
  ClaimResult,
  RecordedBlock,
  OwnerRows,
  Transition,
  SettledElsewhereTransition,
  MinedAndMarked,
} from './settlement-row.js'

export interface MarkMined {
  (ref: ClaimRef, receipt: TransferReceipt): TE.TaskEither<JournalUnavailable, Transition>
  (ref: ClaimRef, receipt: TransferReceipt, answerId: string): TE.TaskEither<JournalUnavailable, MinedAndMarked>
}

export type { ReleasedRowsJournal } from './released-rows.js'

export interface SettlementJournal extends ReleasedRowsJournal {
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
   * A replacement of a settler batch: `attempt` (the same call, higher fees) is added to every `submitted` row whose
   * current claim's latest attempt is `previous`, each at its own item index, in one statement. Answers the ids of
   * the rows that hold it (rows that held it already count); none: nothing to replace.
   */
  readonly addBatchAttempt: (
    previous: Hex,
    attempt: Attempt,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<string>>
  /**
   * Another attempt at the account nonce of the claim's latest attempt while `submitted`; one the claim already has is
   * `applied` and writes nothing. Here and in `markSubmitted`, an attempt whose hash another row holds is `stale` (a
   * hash leads to one row).
   */
  readonly addAttempt: (ref: ClaimRef, attempt: Attempt) => TE.TaskEither<JournalUnavailable, Transition>
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
   * `submitted → cancelled`: the payer cancelled the authorization on-chain (`AuthorizationCanceled`, by `by` when
   * known), so no attempt of this row can transfer anything (docs/ARCHITECTURE.md §5.5).
   */
  readonly markCancelled: (
    ref: ClaimRef,
    note: string,
    by?: MinedTransaction,
  ) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `submitted → submitted` for a row a reorg sent back (`reorgedAt` set) whose trial refused to sign it again:
   * counts the refusal (`refusals`, `firstRefusedAt`) and stores its reason in `error` (docs/ARCHITECTURE.md §5.6).
   */
  readonly markRefused: (ref: ClaimRef, reason: string) => TE.TaskEither<JournalUnavailable, Transition>
  /** `submitted → unsettleable` for a row a reorg sent back that can no longer be mined; `reason` is stored. */
  readonly markUnsettleable: (ref: ClaimRef, reason: string) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `confirmed | reverted | cancelled | final → submitted`, and a `released` row that records a block (a settler
   * batch that reverted whole) in the same claim: the receipt was lost to a reorg; the row names its latest attempt
   * again. A row that was answered success (`confirmed`, `final`) records the time (`reorgedAt`) (docs/ARCHITECTURE.md
   * §5.6).
   */
  readonly markReorged: (ref: ClaimRef) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `submitted → submitted` with an attempt at an account nonce none of the claim's attempts holds, only for a row a
   * reorg sent back (`reorgedAt` set): its nonce was taken on the new chain by another transaction, and the
   * authorization is still unused, so the payment is signed again (docs/ARCHITECTURE.md §5.6).
   */
  readonly markResigned: (ref: ClaimRef, attempt: Attempt) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * `confirmed → final` for `owner`'s rows recorded in these blocks (height and hash both match: a row whose block
   * was replaced is not moved). Answers the ids moved.
   */
  readonly markFinal: (
    owner: Address,
    blocks: ReadonlyArray<RecordedBlock>,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<string>>
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
  /**
   * The account nonces of every attempt of `owner`'s `submitted` and `confirmed` rows, and of its still watched
   * `reverted`, `cancelled` and `released` ones, whatever their age (a reorg may send them back): the nonces its
   * recorded transactions hold, so that recovery can tell a nonce nothing recorded will ever fill (docs/ARCHITECTURE.md
   * §5.5).
   */
  readonly accountNoncesInFlight: (owner: Address) => TE.TaskEither<JournalUnavailable, ReadonlyArray<bigint>>
  /** Rows in `claimed` or `submitted` last changed before `updatedBefore`, oldest first (then by id), after `after`. */
  readonly findUnfinished: (
    updatedBefore: Date,
    limit: number,
    after?: UnfinishedCursor,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<Settlement>>
  /**
   * Records that the answer `answerId` says `success` for row `id`, before that answer leaves: `applied` for the first
   * call of the row's life, whatever its claim or state; `stale`, writing nothing, for every later one.
   */
  readonly markSuccessAnswered: (id: string, answerId: string) => TE.TaskEither<JournalUnavailable, Transition>
  readonly findByKey: (key: SettlementKey) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  /** By any attempt's transaction hash. */
  readonly findByTxHash: (txHash: Hex) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  readonly findByIdempotencyKey: (key: string) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
}
