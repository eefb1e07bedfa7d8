import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import type { ClaimRef, Transition } from '../../ports/settlement-journal.js'
import type { EvmSettlement as Settlement } from '../model/evm-row.js'
import { authorizationOf } from '../model/evm-row.js'
import type { AuthorizationEnd, MinedTransaction } from '../ports/token-reader.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import { settledElsewhereNote } from '../../use-cases/row-receipt.js'

const paymentLogTakenNote = (other: MinedTransaction, ours?: TransferReceipt): string =>
  `authorization used by transaction ${other.txHash} (block ${other.blockNumber}), whose transfer already pays ` +
  `another payment: nothing proves this one was paid, not answered as paid` +
  (ours === undefined ? '' : `; ours ${ours.txHash} reverted`)

type Ended = TE.TaskEither<InfrastructureFailure, O.Option<RowOutcome>>

const applied =
  (outcome: RowOutcome) =>
  (t: Transition): O.Option<RowOutcome> =>
    O.some(t === 'applied' ? outcome : 'stale')

/**
 * docs/ARCHITECTURE.md §5.5: how an authorization ended when no attempt of ours transferred it. `authorizationState`
 * is true after a transfer and after `cancelAuthorization` alike, so only the token's logs tell them apart:
 * `AuthorizationUsed` by another transaction is settled elsewhere (the payee was paid); `AuthorizationCanceled` is the
 * row's own end, `cancelled`, alerted (`rowEnds`): a settle may have been answered success for it.
 */
export const authorizationEnded = (deps: RecoveryDeps) => {
  /** The row ends `cancelled` (naming `end` when known), alerted. */
  const endCancelled = (row: Settlement, ref: ClaimRef, note: string, end?: MinedTransaction): Ended =>
    pipe(
      deps.journal.markCancelled(ref, note, end),
      TE.map((t) => {
        if (t === 'applied') deps.rowEnds?.ended(row, 'cancelled', note)
        return applied('cancelled')(t)
      }),
    )

  const cancelled = (row: Settlement, ref: ClaimRef, end: AuthorizationEnd, ours?: TransferReceipt): Ended =>
    endCancelled(
      row,
      ref,
      `authorization cancelled by the payer in transaction ${end.txHash} (block ${end.blockNumber})` +
        (ours ? `; ours ${ours.txHash} reverted` : ''),
      end,
    )

  /**
   * A Permit2 nonce is the payer's across every token and spender: set, with no transfer of this payment's token to
   * its payee carrying it and no invalidation found, another payment spent it (another token, another spender). Ours
   * can never move: the row ends `cancelled`, its payee unpaid by it, alerted as a cancellation is.
   */
  const spentElsewhere = (row: Settlement, ref: ClaimRef): Ended =>
    endCancelled(
      row,
      ref,
      'Permit2 nonce spent by another payment (another token or spender): this one can never be sent',
    )

  /**
   * Used or cancelled by another transaction beyond the logs searched (a recovery after a long outage, or a node
   * behind): nothing proves this payee was paid, and a row is answered as paid only on proof. It ends `cancelled`,
   * alerted, for an operator to look up; never `confirmed` without a transaction.
   */
  const endedUnproven = (row: Settlement, ref: ClaimRef): Ended =>
    endCancelled(
      row,
      ref,
      'authorization used or cancelled on-chain by another transaction; no event within the blocks searched tells ' +
        'which, so nothing proves the payee was paid: not answered as paid (look the payer and nonce up on-chain)',
    )

  /**
   * Another transaction used the authorization and paid this payment: `confirmed` naming it. Unless the log that paid
   * already settles another row (one log pays one payment): then nothing proves this one was paid, and it ends as a
   * cancellation does, alerted.
   */
  const settledElsewhere = (row: Settlement, ref: ClaimRef, end: AuthorizationEnd, ours?: TransferReceipt): Ended =>
    pipe(
      deps.journal.markSettledElsewhere(ref, settledElsewhereNote(end, ours), end),
      TE.chainW((t) =>
        t === 'payment-log-taken' ? paymentLogTaken(row, ref, end, ours) : TE.right(applied('settled-elsewhere')(t)),
      ),
    )

  const paymentLogTaken = (row: Settlement, ref: ClaimRef, end: MinedTransaction, ours?: TransferReceipt): Ended =>
    endCancelled(row, ref, paymentLogTakenNote(end, ours), end)

  /** Our account nonce went to another transaction, none of ours mined. None: the authorization is unused. */
  const withoutReceipt = (row: Settlement, ref: ClaimRef): Ended =>
    pipe(
      deps.token.authorizationEndedBy(authorizationOf(row), row.createdAt),
      TE.chainW(
        O.match(
          (): Ended =>
            pipe(
              deps.token.payerState(row.payer, row.nonce, row.permit2 === undefined ? 'eip3009' : 'permit2'),
              TE.chainW((state) =>
                state.authorizationUsed && row.permit2 !== undefined
                  ? spentElsewhere(row, ref)
                  : state.authorizationUsed
                    ? endedUnproven(row, ref)
                    : TE.right(O.none),
              ),
            ),
          (end): Ended => (end.how === 'cancelled' ? cancelled(row, ref, end) : settledElsewhere(row, ref, end)),
        ),
      ),
    )

  return { withoutReceipt, cancelled, paymentLogTaken }
}
