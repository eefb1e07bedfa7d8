import { evmRow } from '../model/evm-row.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import type { Hex } from '../model/evm-hex.js'
import { keepRowAlive } from './keep-alive.js'
import type { RecoveryDeps, RowOutcome } from './recovery-types.js'
import { claimRefOf } from '../../ports/settlement-row.js'

/**
 * A key's lowest transaction the chain leaves unmined while later ones of the key wait behind it (the node parked or
 * dropped it, or its fees fell behind, TransferSubmitter.onStalled) is replaced at once, as recovery replaces one
 * unmined for `replaceAfterMs` (keep-alive.ts): the key's later payments are not held up behind it meanwhile. The
 * replacement is recorded before it is sent, and the settle waiting for the stalled one's receipt takes the
 * replacement's. Only for a row still submitted, sent by this key, whose latest attempt it is (a replacement already
 * made, or a row ended since, is left alone: `stale`).
 */
export const replaceStalled =
  (txHash: Hex) =>
  (deps: RecoveryDeps): TE.TaskEither<InfrastructureFailure, RowOutcome> =>
    pipe(
      deps.journal.findByTxHash(txHash),
      TE.chainW((found) => {
        const row = O.toUndefined(O.map(evmRow)(found))
        const attempt = row?.attempts[row.attempts.length - 1]
        if (
          row === undefined ||
          attempt === undefined ||
          row.state !== 'submitted' ||
          row.owner.toLowerCase() !== deps.policy.facilitator.toLowerCase() ||
          attempt.txHash.toLowerCase() !== txHash.toLowerCase()
        )
          return TE.right<InfrastructureFailure, RowOutcome>('stale')
        const now = deps.clock.now()
        const atOnce = { ...deps, recovery: { ...deps.recovery, replaceAfterMs: 0 } }
        return keepRowAlive(atOnce, now, new Map())(row, claimRefOf(row), attempt)
      }),
    )
