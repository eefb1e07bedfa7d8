import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../../model/failures.js'
import type { EvmAddress as Address, Hex } from '../model/evm-hex.js'
import type { ClaimRef, Transition } from '../../ports/settlement-journal.js'
import type { EvmAttempt as Attempt, EvmSettlement as Settlement } from '../model/evm-row.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'

type RowStep = TE.TaskEither<InfrastructureFailure, RowOutcome>

/** Every attempt of a row at its nonce, the one just refused among them. */
const attemptHashes = (row: Settlement, attempt: Attempt): ReadonlyArray<Hex> => [
  ...new Set([...row.attempts.map((a) => a.txHash), attempt.txHash]),
]

const applied =
  (outcome: RowOutcome) =>
  (t: Transition): RowOutcome =>
    t === 'applied' ? outcome : 'stale'

/**
 * A submitted row with no receipt yet whose nonce is not mined: our own attempt is replaced once it is old enough,
 * anyone's is sent again (docs/ARCHITECTURE.md §5.4, §5.5). One per recovery pass: `replacedThisPass` gets the
 * replacements of batches recorded this pass, by the hash they replace.
 */
export const keepRowAlive = (deps: RecoveryDeps, now: Date, replacedThisPass: Map<Hex, Attempt>) => {
  const me = deps.policy.facilitator
  /** Transactions sent this pass: a batch's rows share theirs, which goes once. */
  const sent = new Set<Hex>()

  /**
   * Sends stored raw bytes again; a failed send is no failure of the row ("already known" is fine). A replacement
   * names the transaction it replaces: a settle still waiting for that one's receipt takes the replacement's.
   */
  const rebroadcast = (
    sender: Address,
    transaction: Pick<Attempt, 'txHash' | 'raw'>,
    outcome: RowOutcome,
    replacing?: Hex,
  ): RowStep => {
    if (sent.has(transaction.txHash)) return TE.right(outcome)
    sent.add(transaction.txHash)
    return pipe(
      deps.submitter.rebroadcast(transaction.raw, sender, replacing),
      T.map(() => E.right(outcome)),
    )
  }

  /**
   * A batch's replacement carries all its payments, so it is recorded on every row of the batch at once before it is
   * broadcast (docs/ARCHITECTURE.md §5.7); a lone transfer's on its row.
   */
  const recordReplacement = (
    ref: ClaimRef,
    previous: Attempt,
    replacement: Attempt,
  ): TE.TaskEither<JournalUnavailable, Transition> =>
    previous.batchIndex === undefined
      ? deps.journal.addAttempt(ref, replacement)
      : pipe(
          deps.journal.addBatchAttempt(previous.txHash, replacement),
          TE.map((ids): Transition => (ids.includes(ref.id) ? 'applied' : 'stale')),
        )

  /**
   * A lone row's stored transaction sent again; should the node refuse it (not "already known": that is fine), it will
   * never be mined as it is — a refusal of its content, or a key that cannot pay (a node not reached is no answer):
   * the row is released (guarded) and its
   * nonce, named by no row any more, is filled by the gap filler, so the key is not wedged behind it (the release after
   * the first refusal may not have answered, docs/ARCHITECTURE.md §5.3). A batch's bytes carry other rows: left as
   * they are.
   */
  const rebroadcastOrRelease = (row: Settlement, ref: ClaimRef, attempt: Attempt): RowStep => {
    if (sent.has(attempt.txHash)) return TE.right('rebroadcast')
    sent.add(attempt.txHash)
    return pipe(
      TE.fromTask(deps.submitter.rebroadcast(attempt.raw, row.owner)),
      TE.chainW((result) =>
        E.isRight(result) || result.left._tag !== 'SendRejected' || result.left.unreachable === true
          ? TE.right<InfrastructureFailure, RowOutcome>('rebroadcast')
          : releaseUnlessNonceSpent(row, ref, attempt, result.left.reason),
      ),
    )
  }

  /**
   * The refusal may only say that the nonce is spent ("nonce too low"): by this very transaction, mined since the
   * pass read its receipts. Or it refuses the latest attempt only (say, "replacement transaction underpriced") while
   * an earlier attempt of the row is still in the node's pool and can be mined. Either way the row is left to the next
   * pass, which reads the mined nonce before the receipts and so tells our transfer from another's; released, a paid
   * row would read as never settled.
   */
  const releaseUnlessNonceSpent = (row: Settlement, ref: ClaimRef, attempt: Attempt, reason: string): RowStep =>
    pipe(
      deps.submitter.minedNonce(row.owner),
      TE.chainW((minedNonce) =>
        minedNonce > attempt.accountNonce ? TE.right(true) : deps.submitter.heldByNode(attemptHashes(row, attempt)),
      ),
      TE.chainW((mayBeMined) =>
        mayBeMined
          ? TE.right<InfrastructureFailure, RowOutcome>('rebroadcast')
          : pipe(
              deps.journal.markReleased(
                ref,
                'submitted',
                `the node refuses its stored transaction ${attempt.txHash}: ${reason}`,
              ),
              // Our own nonce is set aside again (not adopted as sent): named by no row now, the gap filler fills it.
              TE.chainFirstTaskK((t) =>
                t === 'applied' && row.owner === me ? deps.submitter.abandon(attempt) : T.of(undefined),
              ),
              TE.map(applied('released-node-refused')),
            ),
      ),
    )

  return (row: Settlement, ref: ClaimRef, attempt: Attempt): RowStep => {
    if (row.owner === me && now.getTime() - attempt.sentAt.getTime() >= deps.recovery.replaceAfterMs) {
      return pipe(
        deps.submitter.prepareReplacement(attempt),
        TE.chainW((replacement): RowStep => {
          // At the fee cap a new attempt could not outbid the latest (docs/ARCHITECTURE.md §5.4): that one is sent
          // again.
          if (replacement._tag === 'AtFeeCap') return rebroadcast(row.owner, attempt, 'rebroadcast')
          const { transfer } = replacement
          const replacing: Attempt = {
            ...transfer,
            sentAt: now,
            ...(attempt.batchIndex === undefined ? {} : { batchIndex: attempt.batchIndex }),
          }
          return pipe(
            recordReplacement(ref, attempt, replacing),
            TE.chainW((t) => {
              if (t !== 'applied') return TE.right<InfrastructureFailure, RowOutcome>('stale')
              if (attempt.batchIndex !== undefined) replacedThisPass.set(attempt.txHash, replacing)
              return rebroadcast(row.owner, transfer, 'replaced', attempt.txHash)
            }),
          )
        }),
      )
    }
    // A dropped transaction is sent again from its stored bytes.
    return attempt.batchIndex === undefined
      ? rebroadcastOrRelease(row, ref, attempt)
      : rebroadcast(row.owner, attempt, 'rebroadcast')
  }
}
