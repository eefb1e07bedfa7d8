import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable, InfrastructureFailure } from '../../model/failures.js'
import type { EvmAddress as Address } from '../model/evm-hex.js'
import type { ClaimRef, UnfinishedCursor } from '../../ports/settlement-journal.js'
import type { EvmSettlement as Settlement } from '../model/evm-row.js'
import { claimRefOf } from '../../ports/settlement-row.js'
import { authorizationOf, evmHex, evmRow } from '../model/evm-row.js'
import type { AuthorizationEnd } from '../ports/token-reader.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'

type Judged = O.Option<RowOutcome>

/**
 * How long after its `validBefore` an unused authorization is taken as never to be used: a node behind by this much
 * (a load-balanced URL, a failover to a node catching up) would still show it unused.
 */
export const EXPIRED_MARGIN_MS = 60_000
/**
 * How long after its release a row whose attempts' nonce has passed, its authorization unused and still valid, is
 * judged anyway (an authorization valid for days would otherwise be asked about on every pass): no node lags an hour.
 */
export const RELEASED_WATCH_MS = 60 * 60_000

/**
 * docs/ARCHITECTURE.md §5.5: a released row's transaction may be mined after all (the node asked said it held none of
 * its attempts while another node behind the same address had one), the attempt of an earlier claim too (a caller's
 * retry took the row back, then released it). Each pass judges the released rows with lone attempts in any claim, not
 * judged yet. While an attempt of the current claim may still be mined (its owner's mined nonce has not passed it),
 * the row waits. Then a successful receipt of one moves the row `released → confirmed`; else the token tells whether,
 * then who, used the authorization: one of the row's attempts, of any claim, confirms it at that transaction's
 * receipt (guarded by the journal: a transaction not the row's is `stale`); another transaction or a cancellation ends
 * the watch. Unused,
 * the watch ends only once the authorization expired (`EXPIRED_MARGIN_MS`) or an hour after the release: a "none"
 * from a node that is behind is never taken as final. A failed read leaves the row to the next pass. Answers the
 * outcomes of the rows confirmed.
 */
export const judgeReleasedRows = (deps: RecoveryDeps): T.Task<ReadonlyArray<RowOutcome>> => {
  const judge = releasedRowJudge(deps)
  const pages = (after?: UnfinishedCursor, done: ReadonlyArray<RowOutcome> = []): T.Task<ReadonlyArray<RowOutcome>> =>
    pipe(
      deps.journal.findReleasedToJudge(deps.recovery.batchSize, after),
      TE.match(
        (): T.Task<ReadonlyArray<RowOutcome>> => T.of(done),
        (rows) =>
          pipe(
            T.sequenceSeqArray(rows.map((row) => judge(evmRow(row)))),
            T.chain((judged) => {
              const outcomes = [...done, ...judged.flatMap((o) => (O.isSome(o) ? [o.value] : []))]
              const last = rows[rows.length - 1]
              return last === undefined || rows.length < deps.recovery.batchSize
                ? T.of(outcomes)
                : pages({ updatedAt: last.updatedAt, id: last.id }, outcomes)
            }),
          ),
      ),
      T.flatten,
    )

  return pages()
}

/** What judging a released row reads and writes. */
export type ReleasedRowJudgeDeps = Pick<RecoveryDeps, 'journal' | 'submitter' | 'token' | 'clock'>

/**
 * Judges one released row at a time, as `judgeReleasedRows` does (its owners' mined nonces read once each): answers
 * `mined-after-release` when the row was confirmed, none when it was left or its watch ended.
 */
export const releasedRowJudge = (deps: ReleasedRowJudgeDeps): ((row: Settlement) => T.Task<Judged>) => {
  const minedNonces = new Map<Address, Promise<E.Either<ChainUnavailable, bigint>>>()
  const minedNonceOf =
    (owner: Address): TE.TaskEither<ChainUnavailable, bigint> =>
    () => {
      const read = minedNonces.get(owner) ?? deps.submitter.minedNonce(owner)()
      minedNonces.set(owner, read)
      return read
    }
  const leave = TE.right<InfrastructureFailure, Judged>(O.none)

  const confirm = (ref: ClaimRef, receipt: TransferReceipt): TE.TaskEither<InfrastructureFailure, Judged> =>
    pipe(
      deps.journal.markReleasedMined(ref, receipt),
      TE.map((t) => (t === 'applied' ? O.some<RowOutcome>('mined-after-release') : O.none)),
    )
  const endWatch = (ref: ClaimRef): TE.TaskEither<InfrastructureFailure, Judged> =>
    pipe(
      deps.journal.endReleasedWatch(ref),
      TE.map(() => O.none),
    )

  /** The current claim's attempts may still be mined while their owner's mined nonce has not passed them. */
  const attemptsSettled = (row: Settlement): TE.TaskEither<ChainUnavailable, boolean> => {
    if (row.attempts.length === 0) return TE.right(true)
    const top = row.attempts.reduce((n, a) => (a.accountNonce > n ? a.accountNonce : n), 0n)
    return pipe(
      minedNonceOf(row.owner),
      TE.map((mined) => mined > top),
    )
  }

  const unusedMayEnd = (row: Settlement): boolean => {
    const now = deps.clock.now().getTime()
    return (
      now >= Number(row.validBefore) * 1000 + EXPIRED_MARGIN_MS || now >= row.updatedAt.getTime() + RELEASED_WATCH_MS
    )
  }

  /**
   * Whether the authorization is used (one `eth_call`, cheap to ask every pass), then who used it (the token's logs):
   * the row's own transaction is confirmed, another's ends the watch.
   */
  const byTheToken = (row: Settlement, ref: ClaimRef): TE.TaskEither<InfrastructureFailure, Judged> =>
    pipe(
      deps.token.payerState(row.payer, row.nonce, row.permit2 === undefined ? 'eip3009' : 'permit2'),
      TE.chainW((state) => (state.authorizationUsed ? usedBy(row, ref) : unusedMayEnd(row) ? endWatch(ref) : leave)),
    )

  const usedBy = (row: Settlement, ref: ClaimRef): TE.TaskEither<InfrastructureFailure, Judged> =>
    pipe(
      deps.token.authorizationEndedBy(authorizationOf(row), row.createdAt),
      TE.chainW(
        O.match(
          // Used, no log found: a node behind, or a use beyond the logs searched; judged as unused once it may end.
          () => (unusedMayEnd(row) ? endWatch(ref) : leave),
          (end: AuthorizationEnd) =>
            end.how === 'cancelled'
              ? endWatch(ref)
              : pipe(
                  deps.submitter.receiptOf([evmHex(end.txHash)]),
                  TE.chainW(
                    O.match(
                      // The token's logs name it, the receipt is not there yet: a node behind; the next pass reads.
                      () => leave,
                      (receipt) =>
                        receipt.succeeded
                          ? pipe(
                              confirm(ref, receipt),
                              TE.chainW((judged) => (O.isSome(judged) ? TE.right(judged) : endWatch(ref))),
                            )
                          : leave,
                    ),
                  ),
                ),
        ),
      ),
    )

  const judge = (row: Settlement): T.Task<Judged> => {
    const ref = claimRefOf(row)
    const ownReceipt = (): TE.TaskEither<ChainUnavailable, O.Option<TransferReceipt>> =>
      row.attempts.length === 0 ? TE.right(O.none) : deps.submitter.receiptOf(row.attempts.map((a) => a.txHash))
    return pipe(
      attemptsSettled(row),
      TE.chainW((settled) =>
        !settled
          ? leave
          : pipe(
              ownReceipt(),
              TE.chainW((receipt) =>
                O.isSome(receipt) && receipt.value.succeeded ? confirm(ref, receipt.value) : byTheToken(row, ref),
              ),
            ),
      ),
      T.map(E.getOrElse((): Judged => O.none)),
    )
  }

  return judge
}
