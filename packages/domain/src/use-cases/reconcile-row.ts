import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../model/failures.js'
import type { Address, Hex } from '../model/payment.js'
import { inFlightKey } from '../ports/payer-exposure.js'
import type { Attempt, ClaimRef, Settlement, Transition } from '../ports/settlement-journal.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import { burntItsBound } from './batch-penalties.js'
import { judgeReceipt, reservationId } from '../penalties/judge-receipt.js'
import { authorizationOf, resignReorged } from './resign-reorged.js'
import { notRunReason, receiptForRow, rowNotRunInBatch } from './row-receipt.js'
import { authorizationEnded } from './authorization-ended.js'
import { refusalPolicy } from './refuse-reorged.js'

type RowStep = TE.TaskEither<InfrastructureFailure, RowOutcome>

/** The settler's per-item bound when recovery is not told it (BatchSettler's deployment default, as group-submission.ts). */
const DEFAULT_ITEM_GAS_LIMIT = 300_000n

/** Outcomes after which the row is no longer `claimed` or `submitted`. */
export const ROW_ENDED: ReadonlySet<RowOutcome> = new Set([
  'mined',
  'reverted',
  'cancelled',
  'unsettleable',
  'settled-elsewhere',
  'released-nonce-consumed',
  'released-node-refused',
  'released-batch-reverted',
  'released-failed-in-batch',
  'released-abandoned-claim',
])
const STILL_IN_FLIGHT: ReadonlySet<RowOutcome> = new Set(['waiting', 'rebroadcast', 'replaced', 'resigned', 'refused'])
/**
 * Ended, but watched through reorgs (docs/ARCHITECTURE.md §5.6): a reorg may re-mine their transaction, so their amount
 * stays in flight until the watch ends (`releaseEndedHolds`).
 */
const WATCHED_END: ReadonlySet<RowOutcome> = new Set(['reverted', 'cancelled'])

const latest = (attempts: ReadonlyArray<Attempt>): Attempt | undefined => attempts[attempts.length - 1]
const applied = (outcome: RowOutcome) => (t: Transition): RowOutcome => (t === 'applied' ? outcome : 'stale')

/**
 * docs/ARCHITECTURE.md §5.5: what recovery does with one `claimed` or `submitted` row, and the nonce gaps after the
 * rows. Rows of a live replica are left to it; receipts and stored raw bytes need no key, so any replica finishes a
 * dead replica's rows, but only the owner (who holds the key) signs replacements.
 */
export const makeRowReconciler = (deps: RecoveryDeps) => {
  const now = deps.clock.now()
  const ageMs = (since: Date) => now.getTime() - since.getTime()
  const me = deps.policy.facilitator
  const resign = resignReorged(deps, now)
  const { backingOff } = refusalPolicy(deps, now)
  const ended = authorizationEnded(deps)

  const releaseAbandoned = (row: Settlement, ref: ClaimRef): RowStep =>
    ageMs(row.updatedAt) < deps.recovery.claimTimeoutMs
      ? TE.right('waiting')
      : pipe(deps.journal.markReleased(ref, 'claimed', 'claim abandoned before anything was signed'), TE.map(applied('released-abandoned-claim')))

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
  /** Transactions sent this pass: a batch's rows share theirs, which goes once. */
  const sent = new Set<Hex>()
  /** Sends stored raw bytes again; a failed send is no failure of the row ("already known" is fine). */
  const rebroadcast = (sender: Address, transaction: Pick<Attempt, 'txHash' | 'raw'>, outcome: RowOutcome): RowStep => {
    if (sent.has(transaction.txHash)) return TE.right(outcome)
    sent.add(transaction.txHash)
    return pipe(
      deps.submitter.rebroadcast(transaction.raw, sender),
      T.map(() => E.right(outcome)),
    )
  }

  /**
   * A batch's replacement carries all its payments, so it is recorded on every row of the batch at once before it is
   * broadcast (docs/ARCHITECTURE.md §5.7); a lone transfer's on its row.
   */
  const recordReplacement = (ref: ClaimRef, previous: Attempt, replacement: Attempt): TE.TaskEither<JournalUnavailable, Transition> =>
    previous.batchIndex === undefined
      ? deps.journal.addAttempt(ref, replacement)
      : pipe(
          deps.journal.addBatchAttempt(previous.txHash, replacement),
          TE.map((ids): Transition => (ids.includes(ref.id) ? 'applied' : 'stale')),
        )

  const keepAlive = (row: Settlement, ref: ClaimRef, attempt: Attempt): RowStep => {
    if (row.owner === me && ageMs(attempt.sentAt) >= deps.recovery.replaceAfterMs) {
      return pipe(
        deps.submitter.prepareReplacement(attempt),
        TE.chainW((replacement): RowStep => {
          // At the fee cap a new attempt could not outbid the latest (docs/ARCHITECTURE.md §5.4): that one is sent again.
          if (replacement._tag === 'AtFeeCap') return rebroadcast(row.owner, attempt, 'rebroadcast')
          const { transfer } = replacement
          const replacing: Attempt = { ...transfer, sentAt: now, ...(attempt.batchIndex === undefined ? {} : { batchIndex: attempt.batchIndex }) }
          return pipe(
            recordReplacement(ref, attempt, replacing),
            TE.chainW((t) => {
              if (t !== 'applied') return TE.right<InfrastructureFailure, RowOutcome>('stale')
              if (attempt.batchIndex !== undefined) replacedThisPass.set(attempt.txHash, replacing)
              return rebroadcast(row.owner, transfer, 'replaced')
            }),
          )
        }),
      )
    }
    // A dropped transaction is sent again from its stored bytes.
    return attempt.batchIndex === undefined ? rebroadcastOrRelease(row, ref, attempt) : rebroadcast(row.owner, attempt, 'rebroadcast')
  }

  /**
   * A lone row's stored transaction sent again; should the node refuse it (not "already known": that is fine), it will
   * never be mined as it is — a refusal of its content, or a key that cannot pay (a node not reached is no answer): the
   * row is released (guarded) and its
   * nonce, named by no row any more, is filled by the gap filler, so the key is not wedged behind it (the release after
   * the first refusal may not have answered, docs/ARCHITECTURE.md §5.3). A batch's bytes carry other rows: left as they are.
   */
  const rebroadcastOrRelease = (row: Settlement, ref: ClaimRef, attempt: Attempt): RowStep => {
    if (sent.has(attempt.txHash)) return TE.right('rebroadcast')
    sent.add(attempt.txHash)
    return pipe(
      TE.fromTask(deps.submitter.rebroadcast(attempt.raw, row.owner)),
      TE.chainW((result) =>
        E.isRight(result) || result.left._tag !== 'SendRejected' || result.left.unreachable === true
          ? TE.right<InfrastructureFailure, RowOutcome>('rebroadcast')
          : pipe(
              deps.journal.markReleased(ref, 'submitted', `the node refuses its stored transaction ${attempt.txHash}: ${result.left.reason}`),
              // Our own nonce is set aside again (not adopted as sent): named by no row now, the gap filler fills it.
              TE.chainFirstTaskK((t) => (t === 'applied' && row.owner === me ? deps.submitter.abandon(attempt) : T.of(undefined))),
              TE.map(applied('released-node-refused')),
            ),
      ),
    )
  }

  /**
   * A failed item of a settler batch whose lone trial now succeeds, its authorization unused (the batch's call differed
   * from the one verify tried, or its gas did): released with the batch's block recorded (a reorg may re-mine it), for
   * the caller's retry; never `reverted` (docs/ARCHITECTURE.md §5.7). A payer with code (as the trial reads it now) is
   * suspended whatever gas its item used, so that retry is refused `payer_suspended` (never sent alone, where it could
   * burn again); a payer without code whose item burnt its bound stays `reverted`.
   */
  const failedItemAloneOrReverted = (row: Settlement, ref: ClaimRef, attempts: ReadonlyArray<Attempt>, mined: TransferReceipt, receipt: TransferReceipt): RowStep => {
    const reverted = pipe(deps.journal.markMined(ref, receipt), TE.map(applied('reverted')))
    const index = attempts.find((a) => a.txHash.toLowerCase() === mined.txHash.toLowerCase())?.batchIndex
    const item = index === undefined ? undefined : mined.items?.find((i) => i.index === index)
    if (item === undefined) return reverted
    const burnt = burntItsBound(item, deps.itemGasLimit ?? DEFAULT_ITEM_GAS_LIMIT)
    return pipe(
      deps.token.trialPayment(authorizationOf(row), row.signature),
      T.chain((trial) => {
        const payerHasCode = E.isRight(trial) && trial.right.payerHasCode === true
        if (payerHasCode) deps.penalties?.refuseSending(row.payer)
        const wouldSucceed = E.isRight(trial) && !trial.right.authorizationUsed && trial.right.transfer._tag === 'WouldSucceed'
        if (!wouldSucceed || (burnt && !payerHasCode)) return reverted
        const then = payerHasCode ? 'released for the caller\'s retry, its payer (with code) suspended' : "released for the caller's retry"
        return pipe(
          deps.journal.markReleased(ref, 'submitted', `its item failed in the settler batch ${mined.txHash}${receipt.revertReason ? ` (${receipt.revertReason})` : ''} while it succeeds alone: ${then}`, mined),
          TE.map(applied('released-failed-in-batch')),
        )
      }),
    )
  }

  /**
   * A failed receipt's penalties, judged before the row is recorded (docs/ARCHITECTURE.md §5.7, judge-receipt.ts): a
   * settle that answered 202 before it escapes none. Whether the payer has code is read from the chain (the trial);
   * unread, the row waits for the next pass; unknown counts as code.
   */
  const judgePenalties = (row: Settlement, attempts: ReadonlyArray<Attempt>, mined: TransferReceipt): TE.TaskEither<InfrastructureFailure, void> =>
    deps.penalties === undefined
      ? TE.right(undefined)
      : pipe(
          deps.token.trialPayment(authorizationOf(row), row.signature),
          TE.map((trial) => {
            const batchIndex = attempts.find((a) => a.txHash.toLowerCase() === mined.txHash.toLowerCase())?.batchIndex
            const payment = { payer: row.payer, payerHasCode: trial.payerHasCode !== false, ...(batchIndex === undefined ? {} : { batchIndex }) }
            judgeReceipt(deps.penalties, deps.itemGasLimit ?? DEFAULT_ITEM_GAS_LIMIT, payment, mined, reservationId(row))
          }),
        )

  const reconcileSubmitted = (row: Settlement, ref: ClaimRef): RowStep => {
    // A reorged row its trial refused waits out its backoff without a read (docs/ARCHITECTURE.md §5.6).
    if (row.reorgedAt !== undefined && backingOff(row)) return TE.right('waiting')
    const attempts = attemptsOf(row)
    const attempt = latest(attempts)
    if (attempt === undefined) return TE.right('waiting')
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
                minedNonce <= attempt.accountNonce
                  ? keepAlive(row, ref, attempt)
                  : pipe(
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
                          (outcome) => TE.right(outcome),
                        ),
                      ),
                    ),
              (mined) => {
                if (rowNotRunInBatch(attempts, mined)) {
                  // Its block is recorded: a reorg may re-mine the batch and run the item (docs/ARCHITECTURE.md §5.6).
                  return pipe(deps.journal.markReleased(ref, 'submitted', notRunReason(mined), mined), TE.map(applied('released-batch-reverted')))
                }
                const receipt = receiptForRow(attempts, mined)
                if (receipt.succeeded) return pipe(deps.journal.markMined(ref, receipt), TE.map(applied('mined')))
                return pipe(
                  judgePenalties(row, attempts, mined),
                  TE.chainW(() => ended.afterRevert(row, ref, receipt)),
                  TE.chainW(O.match(() => failedItemAloneOrReverted(row, ref, attempts, mined, receipt), (outcome) => TE.right(outcome))),
                )
              },
            ),
          ),
        ),
      ),
    )
  }

  /** Asked once per owner and pass: a live replica's many rows cost one look-up. */
  const liveness = new Map<Address, Promise<E.Either<JournalUnavailable, boolean>>>()
  const ownerAlive = (owner: Address): TE.TaskEither<JournalUnavailable, boolean> => () => {
    const known = liveness.get(owner) ?? deps.liveness.isAlive(owner)()
    liveness.set(owner, known)
    return known
  }

  const reconcile = (row: Settlement): T.Task<RowOutcome> => {
    const ref: ClaimRef = { id: row.id, generation: row.generation }
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

  /** Rule 9's in-flight amounts follow our rows to their end, also those a settle answered 202 or a restart left. */
  const countInFlight = (row: Settlement, outcome: RowOutcome): void => {
    const key = inFlightKey(row.payer, row.nonce)
    if (WATCHED_END.has(outcome)) deps.exposure.holdUntilFinished(key, row.payer, row.value)
    else if (ROW_ENDED.has(outcome)) deps.exposure.finished(key)
    else if (row.state === 'submitted' && STILL_IN_FLIGHT.has(outcome)) deps.exposure.holdUntilFinished(key, row.payer, row.value)
  }

  /** After the rows: a nonce of ours that no recorded attempt holds would stall every recorded one above it. */
  const fillNonceGaps: T.Task<ReadonlyArray<bigint>> = pipe(
    deps.journal.accountNoncesInFlight(me),
    TE.chainW((recorded) => (recorded.length === 0 ? TE.right([]) : deps.submitter.fillNonceGaps(recorded))),
    TE.getOrElse(() => T.of<ReadonlyArray<bigint>>([])),
  )

  return { reconcile, fillNonceGaps }
}
