import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import type { Hex } from '../model/evm-hex.js'
import { hasRecoveryIdV, sendableSignature } from '../model/signatures.js'
import type { ClaimRef } from '../../ports/settlement-journal.js'
import type { EvmSettlement as Settlement } from '../model/evm-row.js'
import { authorizationOf } from '../model/evm-row.js'
import type { PaymentTrial } from '../ports/token-reader.js'
import type { ContractPayerGas } from '../ports/transfer-submitter.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import { refusalPolicy } from './refuse-reorged.js'

/**
 * The bytes a re-signed attempt sends, and their trial. A row stored before v 0/1 was mapped at verify (its first
 * attempt mapped it when it was signed) keeps v 0/1: for a payer without code (the trial reads it) its v becomes
 * 27/28 (`sendableSignature`: for a payer without code the token can only `ecrecover`, so only a signature that
 * recovers to its key passes either way); a payer found with code is tried, and sent, with its bytes verbatim.
 */
const trialOfSent = (
  deps: RecoveryDeps,
  row: Settlement,
): TE.TaskEither<InfrastructureFailure, { trial: PaymentTrial; signature: Hex }> => {
  const authorization = authorizationOf(row)
  const verbatim = pipe(
    deps.token.trialPayment(authorization, row.signature),
    TE.map((trial) => ({ trial, signature: row.signature })),
  )
  if (!hasRecoveryIdV(row.signature)) return verbatim
  const mapped = sendableSignature(row.signature, true)
  return pipe(
    deps.token.trialPayment(authorization, mapped),
    TE.chainW((trial) => (trial.payerHasCode === false ? TE.right({ trial, signature: mapped }) : verbatim)),
  )
}

/**
 * docs/ARCHITECTURE.md §5.6: a row a reorg sent back, whose account nonce another transaction took on the new chain
 * while its authorization is still unused. Its settle was answered success, so rather than released it is signed
 * again at the next account nonce, recorded (`markResigned`) before it is broadcast, as every attempt is. Only the
 * owner's key signs: another replica's such row waits for its owner.
 */
export const resignReorged = (deps: RecoveryDeps, now: Date) => {
  const { refuse } = refusalPolicy(deps, now)
  const signAgain = (
    row: Settlement,
    ref: ClaimRef,
    executionGas: bigint | undefined,
    contractPayer: ContractPayerGas | undefined,
  ): TE.TaskEither<InfrastructureFailure, RowOutcome> =>
    pipe(
      deps.submitter.prepare(authorizationOf(row), row.signature, executionGas, contractPayer),
      TE.chainW((prepared) =>
        pipe(
          deps.journal.markResigned(ref, { ...prepared, sentAt: now }),
          T.chain((written): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
            if (E.isRight(written) && written.right === 'applied') {
              // A send that fails leaves a recorded attempt: the next pass re-sends its bytes.
              return pipe(
                deps.submitter.send(prepared, 0),
                T.map(() => E.right('resigned')),
              )
            }
            if (E.isRight(written))
              return pipe(
                deps.submitter.discard(prepared),
                T.map(() => E.right('stale')),
              )
            // Maybe written: the nonce is not handed out again from memory (docs/ARCHITECTURE.md §5.3).
            const forget = written.left.nothingWritten
              ? deps.submitter.discard(prepared)
              : deps.submitter.abandon(prepared)
            return pipe(
              forget,
              T.map(() => E.left(written.left)),
            )
          }),
        ),
      ),
    )

  return (row: Settlement, ref: ClaimRef): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
    if (row.owner !== deps.policy.facilitator) return TE.right('waiting')
    return pipe(
      // Its gas limit from a fresh trial (rule 10), as any settle's: a heavy wallet's transfer must not run out of gas.
      trialOfSent(deps, row),
      TE.chainW(({ trial, signature }): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
        // The transfer would revert now (expired, funds gone, paused, blacklisted): no gas on it; the refusal is
        // counted and, repeated, ends the row `unsettleable` (refuse-reorged.ts).
        if (trial.transfer._tag === 'WouldRevert') return refuse(row, ref, trial.transfer)
        const gas = trial.transfer._tag === 'WouldSucceed' ? trial.transfer : undefined
        const hasCode = trial.payerHasCode !== false
        return signAgain(
          { ...row, signature },
          ref,
          gas?.gasUsed,
          hasCode ? (gas?.gasCap === undefined ? {} : { trialGasCap: gas.gasCap }) : undefined,
        )
      }),
    )
  }
}
