import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import type { ClaimRef } from '../../ports/settlement-journal.js'
import type { EvmSettlement as Settlement } from '../model/evm-row.js'
import type { TransferTrial } from '../ports/token-reader.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'

const MAX_BACKOFF_MS = 60_000

/** Why the token would refuse the transfer now, in words stored on the row. */
export const refusalReason = (
  row: Settlement,
  trial: Extract<TransferTrial, { _tag: 'WouldRevert' }>,
  now: Date,
): string => {
  // By our clock, or by the token's own words at the chain's latest block (its clock is the one that counts).
  if (row.validBefore <= BigInt(Math.floor(now.getTime() / 1000)) || /expired/i.test(trial.reason ?? '')) {
    return `authorization expired (validBefore ${row.validBefore})`
  }
  if (trial.paused) return 'the token is paused'
  if (trial.payerBlacklisted) return 'the payer is blacklisted'
  if (trial.payeeBlacklisted) return 'the payee is blacklisted'
  return `the transfer would revert${trial.reason ? `: ${trial.reason}` : ''}`
}

/**
 * docs/ARCHITECTURE.md §5.6: a reorged row the token now refuses (expired, funds gone, paused, blacklisted) is not
 * signed again. Each refusal is counted, and the next trial waits (`refusalBackoffMs`, doubling); after
 * `unsettleableAfterTries` refusals over `unsettleableAfterMs` (an expired authorization: the tries alone, since it
 * can never become valid again) the row ends `unsettleable`, its reason stored, its amount no longer held.
 */
export const refusalPolicy = (deps: RecoveryDeps, now: Date) => {
  const { refusalBackoffMs, unsettleableAfterMs, unsettleableAfterTries } = deps.recovery

  /** Whether the row was refused too recently for another trial. */
  const backingOff = (row: Settlement): boolean => {
    const refusals = row.refusals ?? 0
    if (refusals === 0) return false
    const wait = Math.min(MAX_BACKOFF_MS, refusalBackoffMs * 2 ** (refusals - 1))
    return now.getTime() - row.updatedAt.getTime() < wait
  }

  const refuse = (
    row: Settlement,
    ref: ClaimRef,
    trial: Extract<TransferTrial, { _tag: 'WouldRevert' }>,
  ): TE.TaskEither<InfrastructureFailure, RowOutcome> => {
    const reason = refusalReason(row, trial, now)
    const refusals = (row.refusals ?? 0) + 1
    const expired = reason.startsWith('authorization expired')
    const refusedForMs = now.getTime() - (row.firstRefusedAt ?? now).getTime()
    const declared = refusals >= unsettleableAfterTries && (expired || refusedForMs >= unsettleableAfterMs)
    if (!declared)
      return pipe(
        deps.journal.markRefused(ref, reason),
        TE.map((t): RowOutcome => (t === 'applied' ? 'refused' : 'stale')),
      )
    return pipe(
      deps.journal.markUnsettleable(ref, `${reason} (refused ${refusals} times)`),
      TE.map((t): RowOutcome => {
        if (t !== 'applied') return 'stale'
        deps.rowEnds?.ended(row, 'unsettleable', reason)
        return 'unsettleable'
      }),
    )
  }

  return { backingOff, refuse }
}
