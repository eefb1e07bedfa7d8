import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable, InfrastructureFailure } from '../model/failures.js'
import type { Address } from '../model/payment.js'
import type { ClaimRef, Settlement, UnfinishedCursor } from '../ports/settlement-journal.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'

type Judged = O.Option<RowOutcome>

/**
 * docs/ARCHITECTURE.md §5.5: a released row's transaction may be mined after all (the node asked said it held none of
 * its attempts, another node behind the same address had one). Each pass reads the mined nonce of the owners of
 * released rows not judged yet, once an owner; a row whose attempts' nonce it has passed is judged once from their
 * receipt: a successful one moves the row `released → confirmed` (guarded: a row claimed again meanwhile is left to
 * its new claim), none or a reverted one ends its watch. A failed read leaves the row to the next pass. Answers the
 * outcomes of the rows confirmed.
 */
export const judgeReleasedRows = (deps: RecoveryDeps): T.Task<ReadonlyArray<RowOutcome>> => {
  const minedNonces = new Map<Address, Promise<E.Either<ChainUnavailable, bigint>>>()
  const minedNonceOf =
    (owner: Address): TE.TaskEither<ChainUnavailable, bigint> =>
    () => {
      const read = minedNonces.get(owner) ?? deps.submitter.minedNonce(owner)()
      minedNonces.set(owner, read)
      return read
    }

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

  const judge = (row: Settlement): T.Task<Judged> => {
    const ref: ClaimRef = { id: row.id, generation: row.generation }
    const top = row.attempts.reduce((n, a) => (a.accountNonce > n ? a.accountNonce : n), 0n)
    return pipe(
      minedNonceOf(row.owner),
      TE.chainW((mined) =>
        mined <= top
          ? TE.right<InfrastructureFailure, Judged>(O.none)
          : pipe(
              deps.submitter.receiptOf(row.attempts.map((a) => a.txHash)),
              TE.chainW(
                O.match(
                  () => endWatch(ref),
                  (receipt) => (receipt.succeeded ? confirm(ref, receipt) : endWatch(ref)),
                ),
              ),
            ),
      ),
      T.map(E.getOrElse((): Judged => O.none)),
    )
  }

  const pages = (after?: UnfinishedCursor, done: ReadonlyArray<RowOutcome> = []): T.Task<ReadonlyArray<RowOutcome>> =>
    pipe(
      deps.journal.findReleasedToJudge(deps.recovery.batchSize, after),
      TE.match(
        (): T.Task<ReadonlyArray<RowOutcome>> => T.of(done),
        (rows) =>
          pipe(
            T.sequenceSeqArray(rows.map(judge)),
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
