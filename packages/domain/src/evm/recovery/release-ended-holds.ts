import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { inFlightKey } from '../../ports/payer-exposure.js'
import { settlementKey } from '../../ports/settlement-row.js'
import type { Settlement } from '../../ports/settlement-journal.js'
import type { RecoveryDeps } from './recovery-types.js'

/**
 * A row whose transaction may still move the payer's funds: in flight, or ended without a transfer while its block is
 * still watched for a reorg that could re-mine it (docs/ARCHITECTURE.md §5.6).
 */
const stillInFlight = (row: Settlement): boolean =>
  row.state === 'claimed' ||
  row.state === 'submitted' ||
  ((row.state === 'reverted' || row.state === 'cancelled') &&
    row.blockHash !== undefined &&
    row.watchEndedAt === undefined)

/**
 * Rule 9's kept amounts whose rows ended where this pass did not see it — released by a fenced write whose answer was
 * lost, finished by another replica, or never ours (an idempotent retry that waited on another replica's row) — are
 * let go: each is looked up by its key, and one no longer in flight (`stillInFlight`) stops counting. Otherwise such an
 * amount would lower its payer's balance until a restart (docs/ARCHITECTURE.md §3, rule 9). Answers how many ended.
 */
export const releaseEndedHolds = (deps: RecoveryDeps): T.Task<number> =>
  pipe(
    deps.exposure.kept(),
    T.traverseSeqArray(({ payer, nonce }) =>
      pipe(
        deps.journal.findByKey(settlementKey(deps.policy, payer, nonce)),
        TE.map((row) => O.isNone(row) || !stillInFlight(row.value)),
        TE.getOrElse(() => T.of(false)),
        T.map((ended) => {
          if (ended) deps.exposure.finished(inFlightKey(payer, nonce))
          return ended
        }),
      ),
    ),
    T.map((ended) => ended.filter(Boolean).length),
  )
