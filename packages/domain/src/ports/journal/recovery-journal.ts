import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { TxHash } from '../../model/payment.js'
import type { Attempt, ClaimRef, Settlement, Transition, UnfinishedCursor } from '../settlement-row.js'
import type { MinedTransaction } from '../transaction-receipt.js'
import type { ReleasedRowsJournal } from './released-rows.js'

/**
 * What recovery reads and writes beyond a settle's own transitions (docs/ARCHITECTURE.md §5.5–5.6): unfinished rows,
 * replacements, a payer's cancellation, reorged rows signed again or given up, released rows judged. A mechanism adds
 * what only it reads, by declaration merging (the EVM's account nonces: evm/ports/account-nonces.ts).
 */
export interface RecoveryJournal extends ReleasedRowsJournal {
  /** Rows in `claimed` or `submitted` last changed before `updatedBefore`, oldest first (then by id), after `after`. */
  readonly findUnfinished: (
    updatedBefore: Date,
    limit: number,
    after?: UnfinishedCursor,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<Settlement>>
  /**
   * Another attempt at the account nonce of the claim's latest attempt while `submitted`; one the claim already has is
   * `applied` and writes nothing. Here and in `markSubmitted`, an attempt whose hash another row holds is `stale` (a
   * hash leads to one row).
   */
  readonly addAttempt: (ref: ClaimRef, attempt: Attempt) => TE.TaskEither<JournalUnavailable, Transition>
  /**
   * A replacement of a settler batch: `attempt` (the same call, higher fees) is added to every `submitted` row whose
   * current claim's latest attempt is `previous`, each at its own item index, in one statement. Answers the ids of
   * the rows that hold it (rows that held it already count); none: nothing to replace.
   */
  readonly addBatchAttempt: (
    previous: TxHash,
    attempt: Attempt,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<string>>
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
   * `submitted → submitted` with an attempt at an account nonce none of the claim's attempts holds, only for a row a
   * reorg sent back (`reorgedAt` set): its nonce was taken on the new chain by another transaction, and the
   * authorization is still unused, so the payment is signed again (docs/ARCHITECTURE.md §5.6).
   */
  readonly markResigned: (ref: ClaimRef, attempt: Attempt) => TE.TaskEither<JournalUnavailable, Transition>
}
