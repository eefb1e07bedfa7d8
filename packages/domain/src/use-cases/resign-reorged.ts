import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../model/failures.js'
import type { Authorization } from '../model/payment.js'
import type { ClaimRef, Settlement } from '../ports/settlement-journal.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import { refusalPolicy } from './refuse-reorged.js'

/** The authorization a row records, as the submitter signs it. */
export const authorizationOf = (row: Settlement): Authorization => ({
  from: row.payer,
  to: row.payee,
  value: row.value,
  validAfter: row.validAfter,
  validBefore: row.validBefore,
  nonce: row.nonce,
})

/**
 * docs/ARCHITECTURE.md §5.6: a row a reorg sent back, whose account nonce another transaction took on the new chain
 * while its authorization is still unused. Its settle was answered success, so rather than released it is signed
 * again at the next account nonce, recorded (`markResigned`) before it is broadcast, as every attempt is. Only the
 * owner's key signs: another replica's such row waits for its owner.
 */
export const resignReorged = (deps: RecoveryDeps, now: Date) => {
  const { refuse } = refusalPolicy(deps, now)
  const signAgain = (row: Settlement, ref: ClaimRef, executionGas: bigint | undefined): TE.TaskEither<InfrastructureFailure, RowOutcome> =>
    pipe(
      deps.submitter.prepare(authorizationOf(row), row.signature, executionGas),
      TE.chainW((prepared) =>
        pipe(
          deps.journal.markResigned(ref, { ...prepared, sentAt: now }),
          T.chain((written): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
            if (E.isRight(written) && written.right === 'applied') {
              // A send that fails leaves a recorded attempt: the next pass re-sends its bytes.
              return pipe(deps.submitter.send(prepared, 0), T.map(() => E.right('resigned')))
            }
            if (E.isRight(written)) return pipe(deps.submitter.discard(prepared), T.map(() => E.right('stale')))
            // Maybe written: the nonce is not handed out again from memory (docs/ARCHITECTURE.md §5.3).
            const forget = written.left.nothingWritten ? deps.submitter.discard(prepared) : deps.submitter.abandon(prepared)
            return pipe(forget, T.map(() => E.left(written.left)))
          }),
        ),
      ),
    )

  return (row: Settlement, ref: ClaimRef): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
    if (row.owner !== deps.policy.facilitator) return TE.right('waiting')
    return pipe(
      // Its gas limit from a fresh trial (rule 10), as any settle's: a heavy wallet's transfer must not run out of gas.
      deps.token.trialPayment(authorizationOf(row), row.signature),
      TE.chainW((trial): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
        // The transfer would revert now (expired, funds gone, paused, blacklisted): no gas on it; the refusal is counted
        // and, repeated, ends the row `unsettleable` (refuse-reorged.ts).
        if (trial.transfer._tag === 'WouldRevert') return refuse(row, ref, trial.transfer)
        return signAgain(row, ref, trial.transfer._tag === 'WouldSucceed' ? trial.transfer.gasUsed : undefined)
      }),
    )
  }
}
