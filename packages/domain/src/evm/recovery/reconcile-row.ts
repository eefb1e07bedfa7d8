import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../../model/failures.js'
import type { EvmAddress as Address, Hex } from '../model/evm-hex.js'
import type { ClaimRef, MinedAndMarked, Transition } from '../../ports/settlement-journal.js'
import type { EvmAttempt as Attempt, EvmSettlement as Settlement } from '../model/evm-row.js'
import { evmPaymentEnds } from '../evm-payment-ends.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import { recordReceipt, type RecordedReceipt } from '../../use-cases/record-receipt.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import { resignReorged } from './resign-reorged.js'
import { authorizationEnded } from './authorization-ended.js'
import { refusalPolicy } from './refuse-reorged.js'
import { failedReceipt } from './failed-receipt.js'
import { keepRowAlive } from './keep-alive.js'
import { countRowInFlight } from './row-in-flight.js'
import { claimRefOf } from '../../ports/settlement-row.js'

type RowStep = TE.TaskEither<InfrastructureFailure, RowOutcome>

const latest = (attempts: ReadonlyArray<Attempt>): Attempt | undefined => attempts[attempts.length - 1]
const applied =
  (outcome: RowOutcome) =>
  (t: Transition): RowOutcome =>
    t === 'applied' ? outcome : 'stale'
const written = (result: E.Either<JournalUnavailable, Transition | MinedAndMarked>, outcome: RowOutcome): RowStep =>
  E.isLeft(result)
    ? TE.left(result.left)
    : TE.right(applied(outcome)(typeof result.right === 'object' ? result.right.transition : result.right))

/**
 * docs/ARCHITECTURE.md §5.5: what recovery does with one `claimed` or `submitted` row, and the nonce gaps after the
 * rows. Rows of a live replica are left to it; receipts and stored raw bytes need no key, so any replica finishes a
 * dead replica's rows, but only the owner (who holds the key) signs replacements.
 */
export const makeRowReconciler = (deps: RecoveryDeps) => {
  const now = deps.clock.now()
  const receiptDeps = { journal: deps.journal, ends: evmPaymentEnds(deps.token) }
  const ageMs = (since: Date) => now.getTime() - since.getTime()
  const me = deps.policy.facilitator
  const resign = resignReorged(deps, now)
  const { backingOff } = refusalPolicy(deps, now)
  const ended = authorizationEnded(deps)
  const { judgePenalties, failedItemAloneOrReverted } = failedReceipt(deps)

  const releaseAbandoned = (row: Settlement, ref: ClaimRef): RowStep =>
    ageMs(row.updatedAt) < deps.recovery.claimTimeoutMs
      ? TE.right('waiting')
      : pipe(
          deps.journal.markReleased(ref, 'claimed', 'claim abandoned before anything was signed'),
          TE.map(applied('released-abandoned-claim')),
        )

  /**
   * Replacements recorded this pass, by the hash they replace: a batch's replacement is recorded on all its rows, but
   * the later rows of the page still hold the attempts read before it (without it, its receipt would go unseen).
   */
  const replacedThisPass = new Map<Hex, Attempt>()
  const attemptsOf = (row: Settlement): ReadonlyArray<Attempt> => {
    const replacements = row.attempts.flatMap((a) => {
      const next = replacedThisPass.get(a.txHash)
      return next !== undefined && !row.attempts.some((b) => b.txHash === next.txHash) ? [next] : []
    })
    return [...row.attempts, ...replacements]
  }
  const keepAlive = keepRowAlive(deps, now, replacedThisPass)
  const countInFlight = countRowInFlight(deps.exposure)

  /**
   * No transaction of the row's claim is mined or can be: the token says what became of the authorization. Used →
   * confirmed naming that transaction; cancelled → cancelled; unused → a row a reorg sent back (its settle answered
   * success) is signed again, any other released for the caller's retry.
   */
  const withoutOurTransfer = (row: Settlement, ref: ClaimRef): RowStep =>
    pipe(
      ended.withoutReceipt(row, ref),
      TE.chainW(
        O.match(
          () =>
            row.reorgedAt !== undefined
              ? resign(row, ref)
              : pipe(
                  deps.journal.markReleased(ref, 'submitted', 'account nonce consumed by another transaction'),
                  TE.map(applied('released-nonce-consumed')),
                ),
          (outcome): RowStep => TE.right(outcome),
        ),
      ),
    )

  /**
   * The mined nonce passed the row's attempt and no attempt of ours has a receipt. A node may show a block's state
   * before it serves the block, its receipts and its logs (anvil commits the state, then stores the block; the nodes
   * behind one URL differ): while it still holds an attempt of ours (in its pool, or mined since), that attempt is what
   * took the nonce, and the row waits for its receipt. Only when it holds none did another transaction take the nonce.
   */
  const nonceConsumed = (row: Settlement, ref: ClaimRef, attempts: ReadonlyArray<Attempt>): RowStep =>
    pipe(
      deps.submitter.heldByNode(attempts.map((a) => a.txHash)),
      TE.chainW((held) =>
        held ? TE.right<InfrastructureFailure, RowOutcome>('waiting') : withoutOurTransfer(row, ref),
      ),
    )

  const reconcileSubmitted = (row: Settlement, ref: ClaimRef): RowStep => {
    // A reorged row its trial refused waits out its backoff without a read (docs/ARCHITECTURE.md §5.6).
    if (row.reorgedAt !== undefined && backingOff(row)) return TE.right('waiting')
    const attempts = attemptsOf(row)
    const attempt = latest(attempts)
    // A row confirmed by an earlier claim's transaction (a released row judged mined, §5.5), sent back by a reorg,
    // has no attempt of its own claim to wait for.
    if (attempt === undefined) return row.reorgedAt === undefined ? TE.right('waiting') : withoutOurTransfer(row, ref)
    // The mined nonce is read before the receipts: a transaction mined between the two reads would otherwise
    // look like a nonce consumed by someone else, and its row would be released while the money moved.
    return pipe(
      deps.submitter.minedNonce(row.owner),
      TE.chainW((minedNonce) =>
        pipe(
          deps.submitter.receiptOf(attempts.map((a) => a.txHash)),
          TE.chainW(
            O.match(
              () =>
                minedNonce <= attempt.accountNonce ? keepAlive(row, ref, attempt) : nonceConsumed(row, ref, attempts),
              (mined) =>
                pipe(
                  recordReceipt(receiptDeps, { ref, payment: row, claimedAt: row.createdAt, attempts }, mined, {
                    by: 'recovery',
                    judge: () => judgePenalties(row, attempts, mined),
                  }),
                  TE.chainW((recorded) => afterReceipt(row, ref, attempts, mined, recorded)),
                ),
            ),
          ),
        ),
      ),
    )
  }

  /** What recovery writes of a receipt record-receipt.ts decided: a cancellation, or a revert that may be released. */
  const afterReceipt = (
    row: Settlement,
    ref: ClaimRef,
    attempts: ReadonlyArray<Attempt>,
    mined: TransferReceipt,
    recorded: RecordedReceipt,
  ): RowStep => {
    switch (recorded._tag) {
      case 'NotRun':
        return written(recorded.written, 'released-batch-reverted')
      case 'Mined':
        return written(recorded.written, 'mined')
      case 'SettledElsewhere':
        return written(recorded.written, 'settled-elsewhere')
      case 'PaymentLogTaken':
        return pipe(
          ended.paymentLogTaken(row, ref, recorded.by, recorded.receipt),
          TE.map(O.getOrElse((): RowOutcome => 'cancelled')),
        )
      case 'Cancelled':
        return pipe(
          ended.cancelled(row, ref, recorded.by, recorded.receipt),
          TE.map(O.getOrElse((): RowOutcome => 'cancelled')),
        )
      case 'Reverted':
      case 'Unrecorded':
        return failedItemAloneOrReverted(row, ref, attempts, mined, recorded.receipt)
    }
  }

  /** Asked once per owner and pass: a live replica's many rows cost one look-up. */
  const liveness = new Map<Address, Promise<E.Either<JournalUnavailable, boolean>>>()
  const ownerAlive =
    (owner: Address): TE.TaskEither<JournalUnavailable, boolean> =>
    () => {
      const known = liveness.get(owner) ?? deps.liveness.isAlive(owner)()
      liveness.set(owner, known)
      return known
    }

  const reconcile = (row: Settlement): T.Task<RowOutcome> => {
    const ref = claimRefOf(row)
    const mine = row.owner === me
    return pipe(
      mine ? TE.right(false) : ownerAlive(row.owner),
      TE.chainW((ownerAlive): RowStep => {
        if (ownerAlive) return TE.right('skipped-owner-alive')
        return row.state === 'claimed' ? releaseAbandoned(row, ref) : reconcileSubmitted(row, ref)
      }),
      TE.getOrElse(() => T.of<RowOutcome>('failed')),
      T.map((outcome) => {
        if (mine) countInFlight(row, outcome)
        return outcome
      }),
    )
  }

  /** After the rows: a nonce of ours that no recorded attempt holds would stall every recorded one above it. */
  const fillNonceGaps: T.Task<ReadonlyArray<bigint>> = pipe(
    deps.journal.accountNoncesInFlight(me),
    TE.chainW((recorded) => (recorded.length === 0 ? TE.right([]) : deps.submitter.fillNonceGaps(recorded))),
    TE.getOrElse(() => T.of<ReadonlyArray<bigint>>([])),
  )

  return { reconcile, fillNonceGaps }
}
