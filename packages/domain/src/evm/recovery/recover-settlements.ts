import { evmRow } from '../model/evm-row.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { SettlementKey, UnfinishedCursor } from '../../ports/settlement-journal.js'
import { judgeReleasedRows } from './judge-released.js'
import { makeRowReconciler } from './reconcile-row.js'
import { ROW_ENDED } from './row-in-flight.js'
import type { FinishReport, RecoveryDeps, RecoveryReport, RowOutcome } from './recovery-types.js'
import { releaseEndedHolds } from './release-ended-holds.js'

export type {
  FinishReport,
  RecoveryDeps,
  RecoveryPolicy,
  RecoveryReport,
  RowEndAlerts,
  RowOutcome,
} from './recovery-types.js'

const tally = (outcomes: ReadonlyArray<RowOutcome>) =>
  outcomes.reduce<Partial<Record<RowOutcome, number>>>((acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }), {})

/**
 * docs/ARCHITECTURE.md §5.5: reconcile `claimed` and `submitted` rows with the chain, judge released rows whose
 * transaction may be mined after all, then fill this replica's nonce gaps.
 */
export const recoverSettlements: RTE.ReaderTaskEither<RecoveryDeps, JournalUnavailable, RecoveryReport> = (deps) => {
  const now = deps.clock.now()
  const { reconcile, fillNonceGaps } = makeRowReconciler(deps)
  const updatedBefore = new Date(now.getTime() - deps.recovery.minAgeMs)
  /** Every eligible row, a page at a time: rows recovery cannot finish yet never hide the ones behind them. */
  const reconcilePages = (
    after?: UnfinishedCursor,
    done: ReadonlyArray<RowOutcome> = [],
  ): TE.TaskEither<JournalUnavailable, ReadonlyArray<RowOutcome>> =>
    pipe(
      deps.journal.findUnfinished(updatedBefore, deps.recovery.batchSize, after),
      TE.chainW((rows) =>
        pipe(
          TE.fromTask(T.sequenceSeqArray(rows.map((row) => reconcile(evmRow(row))))),
          TE.chainW((outcomes) => {
            const last = rows[rows.length - 1]
            return last === undefined || rows.length < deps.recovery.batchSize
              ? TE.right([...done, ...outcomes])
              : reconcilePages({ updatedAt: last.updatedAt, id: last.id }, [...done, ...outcomes])
          }),
        ),
      ),
    )

  return pipe(
    reconcilePages(),
    TE.chainTaskK((outcomes) =>
      pipe(
        judgeReleasedRows(deps),
        T.map((judged) => [...outcomes, ...judged]),
      ),
    ),
    TE.chainFirstTaskK(() => releaseEndedHolds(deps)),
    TE.chainTaskK((outcomes) =>
      pipe(
        fillNonceGaps,
        T.map((noncesFilled) => ({
          examined: outcomes.length,
          noncesFilled,
          outcomes: tally(outcomes),
        })),
      ),
    ),
  )
}

/** What `finishSettlements` came to: the pass, and the rows still in flight after it (to be finished again). */

/**
 * Recovery for the named rows at once, whatever their age (docs/ARCHITECTURE.md §5.6): what a reorg sent back to
 * `submitted` is finished now, not at a later pass. A row no longer `submitted` is left alone; the nonce gaps are
 * filled after the rows, as in a pass.
 */
export const finishSettlements =
  (keys: ReadonlyArray<SettlementKey>): RTE.ReaderTaskEither<RecoveryDeps, JournalUnavailable, FinishReport> =>
  (deps) => {
    const { reconcile, fillNonceGaps } = makeRowReconciler(deps)
    const finishOne = (key: SettlementKey): TE.TaskEither<JournalUnavailable, O.Option<RowOutcome>> =>
      pipe(
        deps.journal.findByKey(key),
        TE.chainTaskK((found) =>
          O.isSome(found) && found.value.state === 'submitted'
            ? pipe(reconcile(evmRow(found.value)), T.map(O.some))
            : T.of(O.none),
        ),
      )
    return pipe(
      TE.sequenceSeqArray(keys.map(finishOne)),
      TE.chainTaskK((outcomes) =>
        pipe(
          fillNonceGaps,
          T.map((noncesFilled): FinishReport => {
            const examined = outcomes.flatMap((o) => (O.isSome(o) ? [o.value] : []))
            return {
              examined: examined.length,
              noncesFilled,
              outcomes: tally(examined),
              stillSubmitted: keys.filter((_, i) => {
                const outcome = outcomes[i]!
                return O.isSome(outcome) && !ROW_ENDED.has(outcome.value)
              }),
            }
          }),
        ),
      ),
    )
  }
