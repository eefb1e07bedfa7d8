import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { FinishReport, RecoveryReport, RowOutcome } from '../../ports/recovery.js'
import type { Settlement, SettlementKey } from '../../ports/settlement-row.js'
import { ENDED, makeSvmRowRecovery, type SvmRecoveryDeps } from './recover-svm-rows.js'

const tally = (outcomes: ReadonlyArray<RowOutcome>) =>
  outcomes.reduce<Partial<Record<RowOutcome, number>>>((acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }), {})

/** One recovery pass over every eligible `claimed` and `submitted` row, a page at a time. */
export const recoverSvmSettlements = (deps: SvmRecoveryDeps): TE.TaskEither<JournalUnavailable, RecoveryReport> => {
  const { reconcile } = makeSvmRowRecovery(deps)
  const updatedBefore = new Date(deps.clock.now().getTime() - deps.recovery.minAgeMs)
  const pages = (
    after?: Settlement,
    done: ReadonlyArray<RowOutcome> = [],
  ): TE.TaskEither<JournalUnavailable, ReadonlyArray<RowOutcome>> =>
    pipe(
      deps.journal.findUnfinished(
        updatedBefore,
        deps.recovery.batchSize,
        after === undefined ? undefined : { updatedAt: after.updatedAt, id: after.id },
      ),
      TE.chainW((rows) =>
        pipe(
          TE.fromTask(T.sequenceSeqArray(rows.map(reconcile))),
          TE.chainW((outcomes) => {
            const last = rows[rows.length - 1]
            const all = [...done, ...outcomes]
            return last === undefined || rows.length < deps.recovery.batchSize ? TE.right(all) : pages(last, all)
          }),
        ),
      ),
    )
  return pipe(
    pages(),
    TE.map((outcomes) => ({ examined: outcomes.length, outcomes: tally(outcomes) })),
  )
}

/** Recovery for the named rows at once, whatever their age (a reorg sent them back, §5.6). */
export const finishSvmSettlements = (
  deps: SvmRecoveryDeps,
  keys: ReadonlyArray<SettlementKey>,
): TE.TaskEither<JournalUnavailable, FinishReport> => {
  const { reconcile } = makeSvmRowRecovery(deps)
  const finishOne = (key: SettlementKey) =>
    pipe(
      deps.journal.findByKey(key),
      TE.chainTaskK((found) =>
        O.isSome(found) && found.value.state === 'submitted'
          ? pipe(reconcile(found.value), T.map(O.some))
          : T.of(O.none),
      ),
    )
  return pipe(
    TE.sequenceSeqArray(keys.map(finishOne)),
    TE.map((outcomes): FinishReport => {
      const examined = outcomes.flatMap((o) => (O.isSome(o) ? [o.value] : []))
      return {
        examined: examined.length,
        outcomes: tally(examined),
        stillSubmitted: keys.filter((_, i) => {
          const outcome = outcomes[i]!
          return O.isSome(outcome) && !ENDED.has(outcome.value)
        }),
      }
    }),
  )
}
