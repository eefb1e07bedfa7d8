import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../model/failures.js'
import type { FacilitatorPolicy, Hex } from '../model/payment.js'
import type { Clock } from '../ports/clock.js'
import type { ReplicaLiveness } from '../ports/replica-liveness.js'
import type { Attempt, ClaimRef, Settlement, SettlementJournal, Transition } from '../ports/settlement-journal.js'
import type { TokenReader } from '../ports/token-reader.js'
import type { TransferSubmitter } from '../ports/transfer-submitter.js'

export interface RecoveryDeps {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  readonly journal: SettlementJournal
  readonly submitter: TransferSubmitter
  readonly token: TokenReader
  readonly liveness: ReplicaLiveness
  readonly recovery: RecoveryPolicy
}

export interface RecoveryPolicy {
  /** Rows younger than this are left to the request that is still handling them. [10 s] */
  readonly minAgeMs: number
  /** A `claimed` row with no attempt this old was abandoned by its claimant. [30 s] */
  readonly claimTimeoutMs: number
  /** An attempt unmined this long gets a replacement with raised fees. [15 s] */
  readonly replaceAfterMs: number
  /** Rows per pass. [100] */
  readonly batchSize: number
}

/** What one row came to. */
export type RowOutcome =
  | 'skipped-owner-alive'
  | 'released-abandoned-claim'
  | 'mined'
  | 'settled-elsewhere'
  | 'released-nonce-consumed'
  | 'replaced'
  | 'rebroadcast'
  | 'waiting'
  | 'stale'
  | 'failed'

export interface RecoveryReport {
  readonly examined: number
  /** Nonces of this replica's account that no recorded transaction held, filled so later ones can be mined. */
  readonly noncesFilled: ReadonlyArray<bigint>
  readonly outcomes: Readonly<Partial<Record<RowOutcome, number>>>
}

type RowStep = TE.TaskEither<InfrastructureFailure, RowOutcome>

const latest = (attempts: ReadonlyArray<Attempt>): Attempt | undefined => attempts[attempts.length - 1]
const applied = (outcome: RowOutcome) => (t: Transition): RowOutcome => (t === 'applied' ? outcome : 'stale')

/**
 * docs/ARCHITECTURE.md §5.5: reconcile `claimed` and `submitted` rows with the chain. Rows of a live replica are left
 * to it; receipts and stored raw bytes need no key, so any replica finishes a dead replica's rows, but only the
 * owner (who holds the key) signs replacements.
 */
export const recoverSettlements: RTE.ReaderTaskEither<RecoveryDeps, JournalUnavailable, RecoveryReport> = (deps) => {
  const now = deps.clock.now()
  const ageMs = (since: Date) => now.getTime() - since.getTime()
  const me = deps.policy.facilitator

  const releaseAbandoned = (row: Settlement, ref: ClaimRef): RowStep =>
    ageMs(row.updatedAt) < deps.recovery.claimTimeoutMs
      ? TE.right('waiting')
      : pipe(deps.journal.markReleased(ref, 'claimed', 'claim abandoned before anything was signed'), TE.map(applied('released-abandoned-claim')))

  /** Sends stored raw bytes again; a failed send is no failure of the row ("already known" is fine). */
  const rebroadcast = (raw: Hex, outcome: RowOutcome): RowStep =>
    pipe(
      deps.submitter.rebroadcast(raw),
      T.map(() => E.right(outcome)),
    )

  const keepAlive = (row: Settlement, ref: ClaimRef, attempt: Attempt): RowStep => {
    if (row.owner === me && ageMs(attempt.sentAt) >= deps.recovery.replaceAfterMs) {
      return pipe(
        deps.submitter.prepareReplacement(
          { from: row.payer, to: row.payee, value: row.value, validAfter: row.validAfter, validBefore: row.validBefore, nonce: row.nonce },
          row.signature,
          attempt,
        ),
        TE.chainW((replacement): RowStep => {
          // At the fee cap a new attempt could not outbid the latest (docs/ARCHITECTURE.md §5.4): that one is sent again.
          if (replacement._tag === 'AtFeeCap') return rebroadcast(attempt.raw, 'rebroadcast')
          const { transfer } = replacement
          return pipe(
            deps.journal.addAttempt(ref, { ...transfer, sentAt: now }),
            TE.chainW((t) => (t === 'applied' ? rebroadcast(transfer.raw, 'replaced') : TE.right<InfrastructureFailure, RowOutcome>('stale'))),
          )
        }),
      )
    }
    // A dropped transaction is sent again from its stored bytes.
    return rebroadcast(attempt.raw, 'rebroadcast')
  }

  const reconcileSubmitted = (row: Settlement, ref: ClaimRef): RowStep => {
    const attempt = latest(row.attempts)
    if (attempt === undefined) return TE.right('waiting')
    // The mined nonce is read before the receipts: a transaction mined between the two reads would otherwise
    // look like a nonce consumed by someone else, and its row would be released while the money moved.
    return pipe(
      deps.submitter.minedNonce(row.owner),
      TE.chainW((minedNonce) =>
        pipe(
          deps.submitter.receiptOf(row.attempts.map((a) => a.txHash)),
          TE.chainW(
            O.match(
              () =>
                minedNonce <= attempt.accountNonce
                  ? keepAlive(row, ref, attempt)
                  : pipe(
                      deps.token.payerState(row.payer, row.nonce),
                      TE.chainW((state) =>
                        state.authorizationUsed
                          ? pipe(deps.journal.markSettledElsewhere(ref, 'authorization used on-chain by another transaction'), TE.map(applied('settled-elsewhere')))
                          : pipe(
                              deps.journal.markReleased(ref, 'submitted', 'account nonce consumed by another transaction'),
                              TE.map(applied('released-nonce-consumed')),
                            ),
                      ),
                    ),
              (receipt) => pipe(deps.journal.markMined(ref, receipt), TE.map(applied('mined'))),
            ),
          ),
        ),
      ),
    )
  }

  const reconcile = (row: Settlement): T.Task<RowOutcome> => {
    const ref: ClaimRef = { id: row.id, generation: row.generation }
    const mine = row.owner === me
    return pipe(
      mine ? TE.right(false) : deps.liveness.isAlive(row.owner),
      TE.chainW((ownerAlive): RowStep => {
        if (ownerAlive) return TE.right('skipped-owner-alive')
        return row.state === 'claimed' ? releaseAbandoned(row, ref) : reconcileSubmitted(row, ref)
      }),
      TE.getOrElse(() => T.of<RowOutcome>('failed')),
    )
  }

  /** After the rows: a nonce of ours that no recorded attempt holds would stall every recorded one above it. */
  const fillNonceGaps: T.Task<ReadonlyArray<bigint>> = pipe(
    deps.journal.accountNoncesInFlight(me),
    TE.chainW((recorded) => (recorded.length === 0 ? TE.right([]) : deps.submitter.fillNonceGaps(recorded))),
    TE.getOrElse(() => T.of<ReadonlyArray<bigint>>([])),
  )

  return pipe(
    deps.journal.findUnfinished(new Date(now.getTime() - deps.recovery.minAgeMs), deps.recovery.batchSize),
    TE.chainTaskK((rows) =>
      pipe(
        T.Do,
        T.apS('outcomes', T.sequenceSeqArray(rows.map(reconcile))),
        T.bind('noncesFilled', () => fillNonceGaps),
        T.map(({ outcomes, noncesFilled }) => ({
          examined: rows.length,
          noncesFilled,
          outcomes: outcomes.reduce<Partial<Record<RowOutcome, number>>>((acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }), {}),
        })),
      ),
    ),
  )
}
