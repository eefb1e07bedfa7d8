import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { Clock } from '../../ports/clock.js'
import { inFlightKey, type PayerExposure } from '../../ports/payer-exposure.js'
import type { RecoveryPolicy, RowOutcome } from '../../ports/recovery.js'
import type { ReplicaLiveness } from '../../ports/replica-liveness.js'
import type { SettlementJournal } from '../../ports/settlement-journal.js'
import { claimRefOf, type ClaimRef, type Settlement } from '../../ports/settlement-row.js'
import { recordReceipt } from '../../use-cases/record-receipt.js'
import type { SvmChain, SvmStatus } from '../ports/svm-chain.js'
import type { TransferReceipt } from '../../ports/transaction-receipt.js'
import { isLanded, judgeSvmReceipt, landedReceipt } from '../submission/svm-receipt.js'
import { NOBODY_ELSE } from '../svm-payment-ends.js'

export interface SvmRecoveryDeps {
  readonly clock: Clock
  readonly journal: SettlementJournal
  readonly chain: Pick<SvmChain, 'send' | 'statuses' | 'landable' | 'blockHashAt'>
  readonly recovery: RecoveryPolicy
  readonly liveness: ReplicaLiveness
  readonly exposure: PayerExposure
  readonly penalties?: PenaltyBox
  /** This lane's fee payer: the owner of the rows it claims. */
  readonly owner: string
}

type RowStep = TE.TaskEither<InfrastructureFailure, RowOutcome>
const applied =
  (outcome: RowOutcome) =>
  (t: string): RowOutcome =>
    t === 'applied' ? outcome : 'stale'
/** Outcomes after which the row is no longer `claimed` or `submitted`. */
export const ENDED: ReadonlySet<RowOutcome> = new Set([
  'mined',
  'reverted',
  'released-abandoned-claim',
  'released-node-refused',
])

/**
 * docs/ARCHITECTURE.md §5.5 on Solana: a `submitted` row's transactions are looked up by signature (searching the
 * cluster's history): landed → recorded (confirmed or reverted); unknown while its blockhash lives → sent again (the same
 * bytes: the cluster runs them once); unknown once no block can take it → released (nothing moved: the caller may pay
 * anew). The blockhash is read before the statuses: a transaction that lands between the two reads is seen, never
 * released. A `claimed` row with no attempt past the claim timeout is released. A live replica's rows are its own.
 */
export const makeSvmRowRecovery = (deps: SvmRecoveryDeps) => {
  const receiptDeps = { journal: deps.journal, ends: NOBODY_ELSE }

  const settleReceipt = (row: Settlement, ref: ClaimRef, signature: string, status: SvmStatus): RowStep =>
    pipe(
      TE.fromTask(() => landedReceipt(deps.chain, signature, status)),
      TE.chainW((receipt) => recordLanded(row, ref, receipt)),
    )

  const recordLanded = (row: Settlement, ref: ClaimRef, receipt: TransferReceipt): RowStep => {
    judgeSvmReceipt(deps.penalties, row.payer, receipt)
    const recorded = recordReceipt(receiptDeps, { ref, payment: row, claimedAt: row.createdAt }, receipt, {
      by: 'recovery',
      judge: () => TE.right(undefined),
    })
    return pipe(
      recorded,
      TE.chainW((r): RowStep => {
        if (r._tag === 'Mined')
          return pipe(
            TE.fromEither(r.written),
            TE.map((w) => applied('mined')(typeof w === 'object' ? w.transition : w)),
          )
        return pipe(deps.journal.markMined(ref, receipt), TE.map(applied('reverted')))
      }),
    )
  }

  const unseen = (row: Settlement, ref: ClaimRef, landable: boolean): RowStep => {
    const latest = row.attempts[row.attempts.length - 1]
    if (latest === undefined) return TE.right('waiting')
    if (landable)
      return pipe(
        deps.chain.send(latest.raw),
        TE.map((): RowOutcome => 'rebroadcast'),
      )
    const reason = 'its blockhash expired before any block took its transaction: nothing moved'
    return pipe(deps.journal.markReleased(ref, 'submitted', reason), TE.map(applied('released-node-refused')))
  }

  const reconcileSubmitted = (row: Settlement, ref: ClaimRef): RowStep => {
    const latest = row.attempts[row.attempts.length - 1]
    if (latest === undefined) return TE.right('waiting')
    const signatures = row.attempts.map((a) => a.txHash)
    return pipe(
      deps.chain.landable(latest.raw),
      TE.chainW((landable) =>
        pipe(
          deps.chain.statuses(signatures),
          TE.chainW((statuses): RowStep => {
            const found = signatures
              .map((s) => [s, statuses.get(s)] as const)
              .find(([, status]) => status !== undefined)
            if (found === undefined) return unseen(row, ref, landable)
            const [signature, status] = found
            return isLanded(status) ? settleReceipt(row, ref, signature, status) : TE.right('waiting')
          }),
        ),
      ),
    )
  }

  const releaseAbandoned = (row: Settlement, ref: ClaimRef): RowStep =>
    deps.clock.now().getTime() - row.updatedAt.getTime() < deps.recovery.claimTimeoutMs
      ? TE.right('waiting')
      : pipe(
          deps.journal.markReleased(ref, 'claimed', 'claim abandoned before anything was signed'),
          TE.map(applied('released-abandoned-claim')),
        )

  const reconcile = (row: Settlement): T.Task<RowOutcome> => {
    const ref = claimRefOf(row)
    const mine = row.owner === deps.owner
    return pipe(
      mine ? TE.right(false) : deps.liveness.isAlive(row.owner),
      TE.chainW((alive): RowStep => {
        if (alive) return TE.right('skipped-owner-alive')
        return row.state === 'claimed' ? releaseAbandoned(row, ref) : reconcileSubmitted(row, ref)
      }),
      TE.getOrElse(() => T.of<RowOutcome>('failed')),
      T.map((outcome) => {
        const key = inFlightKey(row.payer, row.nonce)
        if (mine && ENDED.has(outcome)) deps.exposure.finished(key)
        else if (mine && row.state === 'submitted') deps.exposure.holdUntilFinished(key, row.payer, row.value)
        return outcome
      }),
    )
  }
  return { reconcile }
}
