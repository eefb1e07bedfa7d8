import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../model/failures.js'
import type {
  Attempt,
  ClaimRef,
  MinedAndMarked,
  SettledElsewhereTransition,
  Settlement,
  Transition,
} from '../ports/settlement-row.js'
import type { ClaimsJournal } from '../ports/journal/claims-journal.js'
import type { PaymentEnds } from '../ports/payment-ends.js'
import type { AuthorizationEnd, MinedTransaction, TransferReceipt } from '../ports/transaction-receipt.js'
import { notRunReason, receiptForRow, rowNotRunInBatch, settledElsewhereNote } from './row-receipt.js'

export interface ReceiptDeps {
  readonly journal: ClaimsJournal
  /** Who else used or cancelled the row's payment, when ours reverted (§5.4–5.5). */
  readonly ends: PaymentEnds
}

/**
 * The row a receipt is recorded on; `attempts`, to read a settler batch's receipt as the row's own (row-receipt.ts).
 */
export interface ReceiptRow {
  readonly ref: ClaimRef
  /** The row's payment, as claimed: what a search for who else used it looks for. */
  readonly payment: Settlement
  /** When the payment was claimed: where a search for who else used the authorization may stop. */
  readonly claimedAt: Date
  /** None: the receipt is the row's already (a settle's own, as its submission answered it). */
  readonly attempts?: ReadonlyArray<Pick<Attempt, 'txHash' | 'batchIndex'>>
}

/** Who records, and so what is written (each caller's rule, docs/ARCHITECTURE.md §5.2–5.7). */
export type ReceiptCaller =
  /** A settle's own receipt; `answerId`: a success's write takes that answer's success mark too. */
  | { readonly by: 'settle'; readonly answerId?: string }
  /** Successes only (a retry awaiting the row; a receipt after its settle answered 202): a failed one is recovery's. */
  | { readonly by: 'successes' }
  /**
   * Recovery: a failed receipt's penalties are judged first (`judge`: nothing is written when it fails), then the
   * token's events say who ended the authorization, used or cancelled; a revert that stands is the caller's to write.
   */
  | { readonly by: 'recovery'; readonly judge: () => TE.TaskEither<InfrastructureFailure, void> }

type Written<A = Transition> = E.Either<JournalUnavailable, A>

/** What one receipt made of its row; `written`: the journal's answer to the write, when this wrote it. */
export type RecordedReceipt =
  /** A settler batch did not run the row's item: released, its block recorded (a reorg may re-mine it, §5.6). */
  | { readonly _tag: 'NotRun'; readonly written: Written }
  | {
      readonly _tag: 'Mined'
      readonly receipt: TransferReceipt
      readonly written: Written<Transition | MinedAndMarked>
    }
  /** Ours reverted because another transaction used the authorization first: the payee was paid by it (§5.4). */
  | { readonly _tag: 'SettledElsewhere'; readonly by: MinedTransaction; readonly written: Written }
  /**
   * Ours reverted; the transaction that used the authorization paid it with a log another row is credited with
   * already (one log pays one payment): unwritten, recovery ends the row as a cancellation.
   */
  | { readonly _tag: 'PaymentLogTaken'; readonly receipt: TransferReceipt; readonly by: MinedTransaction }
  /**
   * Ours reverted, nobody else used the authorization; unwritten for recovery (a failed batch item may be released).
   */
  | { readonly _tag: 'Reverted'; readonly receipt: TransferReceipt; readonly written?: Written }
  /** Ours reverted after the payer cancelled the authorization (recovery alone asks): the caller writes it. */
  | { readonly _tag: 'Cancelled'; readonly receipt: TransferReceipt; readonly by: AuthorizationEnd }
  /** A failed receipt a retry leaves to recovery. */
  | { readonly _tag: 'Unrecorded'; readonly receipt: TransferReceipt }

/**
 * docs/ARCHITECTURE.md §5.4–5.7: a mined receipt recorded on its row, the one place that decides what it makes of it
 * — the row's item not run by its batch → released; ours succeeded → mined; ours reverted → settled elsewhere
 * when another transaction used the authorization first, else reverted (or, for recovery, cancelled).
 */
export const recordReceipt = (
  deps: ReceiptDeps,
  row: ReceiptRow,
  mined: TransferReceipt,
  caller: ReceiptCaller,
): TE.TaskEither<InfrastructureFailure, RecordedReceipt> => {
  const { journal } = deps
  const { attempts } = row
  const receipt = attempts === undefined ? mined : receiptForRow(attempts, mined)
  if (caller.by === 'successes' && !receipt.succeeded) return TE.right({ _tag: 'Unrecorded', receipt })
  if (attempts !== undefined && rowNotRunInBatch(attempts, mined)) {
    const released = journal.markReleased(row.ref, 'submitted', notRunReason(mined), mined)
    return write(released, (written) => ({ _tag: 'NotRun', written }))
  }
  if (receipt.succeeded) {
    const answerId = caller.by === 'settle' ? caller.answerId : undefined
    const marked =
      answerId === undefined ? journal.markMined(row.ref, receipt) : journal.markMined(row.ref, receipt, answerId)
    return write<Transition | MinedAndMarked>(marked, (written) => ({ _tag: 'Mined', receipt, written }))
  }
  return pipe(
    caller.by === 'recovery' ? caller.judge() : TE.right(undefined),
    TE.chainW(() => TE.fromTask(endedElsewhere(deps, row, receipt, caller.by === 'recovery'))),
    TE.chainW(
      O.match(
        (): TE.TaskEither<never, RecordedReceipt> =>
          caller.by === 'recovery'
            ? TE.right({ _tag: 'Reverted', receipt })
            : write(journal.markMined(row.ref, receipt), (written) => ({ _tag: 'Reverted', receipt, written })),
        (end) =>
          'how' in end && end.how === 'cancelled'
            ? TE.right<never, RecordedReceipt>({ _tag: 'Cancelled', receipt, by: end })
            : write(journal.markSettledElsewhere(row.ref, settledElsewhereNote(end, receipt), end), (written) =>
                E.isRight(written) && written.right === 'payment-log-taken'
                  ? { _tag: 'PaymentLogTaken', receipt, by: end }
                  : { _tag: 'SettledElsewhere', by: end, written: E.map(settledOrStale)(written) },
              ),
      ),
    ),
  )
}

const write = <A>(
  transition: TE.TaskEither<JournalUnavailable, A>,
  recorded: (written: Written<A>) => RecordedReceipt,
): TE.TaskEither<never, RecordedReceipt> => TE.fromTask(T.map(recorded)(transition))

/**
 * A reverted attempt of ours may have lost to someone who copied the signed authorization (from the mempool) and got
 * it mined first: the payee was paid by that transaction (docs/ARCHITECTURE.md §5.4); recovery also reads a payer's
 * cancellation (§5.5). None when nobody else ended it, or when the chain cannot tell now (the revert stands).
 */
const endedElsewhere = (
  { ends }: ReceiptDeps,
  { payment, claimedAt }: ReceiptRow,
  receipt: TransferReceipt,
  usedOrCancelled: boolean,
): T.Task<O.Option<MinedTransaction | AuthorizationEnd>> =>
  pipe(
    usedOrCancelled
      ? ends.endedBy(payment, claimedAt, receipt.blockNumber)
      : ends.usedBy(payment, claimedAt, receipt.blockNumber),
    TE.map(O.filter((other: MinedTransaction) => other.txHash !== receipt.txHash)),
    TE.getOrElse(() => T.of<O.Option<MinedTransaction | AuthorizationEnd>>(O.none)),
  )

/** The journal's answer to a write that moved the row or found it moved on. */
const settledOrStale = (t: SettledElsewhereTransition): Transition => (t === 'applied' ? 'applied' : 'stale')
