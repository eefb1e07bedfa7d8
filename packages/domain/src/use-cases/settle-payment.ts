import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  chainUnavailable,
  journalUnavailable,
  type InfrastructureFailure,
  type SettleRefusal,
  type VerifyFailure,
} from '../model/failures.js'
import { availableBalance } from '../model/available-balance.js'
import type { Address, Hex, PaymentRequest } from '../model/payment.js'
import type { ClaimRef, NewSettlement, Settlement, SettlementJournal } from '../ports/settlement-journal.js'
import type { PreparedTransfer, TransferReceipt, TransferSubmitter } from '../ports/transfer-submitter.js'
import type { PayerState } from '../ports/token-reader.js'
import { verifyPayment, type VerifyDeps } from './verify-payment.js'

export interface SettleDeps extends VerifyDeps {
  readonly journal: SettlementJournal
  readonly submitter: TransferSubmitter
}

export interface SettleOptions {
  /** The requirements as received, stored on the row for audit. */
  readonly requirementsRecord: Readonly<Record<string, unknown>>
  readonly idempotencyKey?: string
  readonly requestHash?: string
}

export type SettleOutcome =
  | { readonly _tag: 'Settled'; readonly payer: Address; readonly txHash: Hex; readonly blockNumber: bigint; readonly replayed: boolean }
  | { readonly _tag: 'Refused'; readonly payer: Address; readonly refusal: VerifyFailure | SettleRefusal }
  /** Broadcast, no receipt within the bound: the journal follows it; never a bare failure (docs/ARCHITECTURE.md §4). */
  | { readonly _tag: 'Pending'; readonly payer: Address; readonly txHash: Hex }
  /** The `Idempotency-Key` was used with another request. */
  | { readonly _tag: 'IdempotencyConflict'; readonly payer: Address }

const DAY_MS = 24 * 60 * 60 * 1000
const POLL_MS = 100

type Step<A> = TE.TaskEither<InfrastructureFailure, A>

/**
 * docs/ARCHITECTURE.md §5: verify → claim → sign → record the attempt → broadcast → confirm.
 * Infrastructure failures are answered (503) only while nothing has been broadcast.
 */
export const settlePayment =
  (request: PaymentRequest, options: SettleOptions): RTE.ReaderTaskEither<SettleDeps, InfrastructureFailure, SettleOutcome> =>
  (deps) => {
    const { authorization, signature } = request.payload
    const payer = authorization.from
    const key = { network: deps.policy.network, asset: deps.policy.asset.address, payer, nonce: authorization.nonce }
    const refused = (refusal: VerifyFailure | SettleRefusal): SettleOutcome => ({ _tag: 'Refused', payer, refusal })
    const pending = (txHash: Hex): SettleOutcome => ({ _tag: 'Pending', payer, txHash })
    const alreadySettling = (row: Settlement): SettleOutcome =>
      refused({ _tag: 'AlreadySettling', state: row.state, ...(row.txHash ? { txHash: row.txHash } : {}) })

    const windowMs = deps.policy.idempotencyWindowMs ?? DAY_MS
    const withinWindow = (row: Settlement) => deps.clock.now().getTime() - row.createdAt.getTime() < windowMs
    /** The row is this very request, retried under its `Idempotency-Key`: its outcome is the answer. */
    const isOurRetry = (row: Settlement) =>
      options.idempotencyKey !== undefined &&
      row.idempotencyKey === options.idempotencyKey &&
      row.requestHash === options.requestHash &&
      withinWindow(row)

    /** Waits (bounded) for the row's outcome; a retry never starts a second transaction for one authorization. */
    const awaitOutcome = (row: Settlement, waitedMs = 0): Step<SettleOutcome> => {
      switch (row.state) {
        case 'confirmed':
          return TE.right(
            row.txHash !== undefined && row.blockNumber !== undefined
              ? { _tag: 'Settled', payer, txHash: row.txHash, blockNumber: row.blockNumber, replayed: true }
              : alreadySettling(row),
          )
        case 'reverted':
          return TE.right(row.txHash ? refused({ _tag: 'TransactionReverted', txHash: row.txHash }) : alreadySettling(row))
        case 'released':
          // Nothing of the earlier attempt reached the chain: this retry may settle it.
          return settleAnew()
        case 'claimed':
        case 'submitted':
          if (waitedMs >= deps.policy.receiptTimeoutMs) return TE.right(row.txHash ? pending(row.txHash) : alreadySettling(row))
          return pipe(
            TE.fromTask(deps.clock.sleep(POLL_MS)),
            TE.chainW(() => deps.journal.findByKey(key)),
            TE.chainW(O.match(() => settleAnew(), (next) => awaitOutcome(next, waitedMs + POLL_MS))),
          )
      }
    }

    const answerExisting = (row: Settlement): Step<SettleOutcome> => (isOurRetry(row) ? awaitOutcome(row) : TE.right(alreadySettling(row)))

    /** A nonce used on-chain is answered with our own row when we settled it, so the caller can look it up. */
    const refuseWithJournalContext = (failure: VerifyFailure): Step<SettleOutcome> =>
      failure._tag !== 'AuthorizationUsed'
        ? TE.right(refused(failure))
        : pipe(
            deps.journal.findByKey(key),
            TE.map(O.filter((row) => row.state !== 'released')),
            TE.chainW(O.match(() => TE.right(refused(failure)), answerExisting)),
            TE.orElseW(() => TE.right(refused(failure))),
          )

    /** Rule 9 again, atomically with taking the amount out of what later settles of this payer may spend. */
    const withReservation = (state: PayerState, settle: () => Step<SettleOutcome>): Step<SettleOutcome> =>
      pipe(
        deps.exposure.reserve(payer, authorization.value, state.balance),
        O.match(
          () => {
            const available = availableBalance(state.balance, deps.exposure.inFlight(payer))
            return TE.right(refused({ _tag: 'InsufficientFunds', available, required: authorization.value }))
          },
          (release) =>
            pipe(
              settle(),
              T.map((result) => {
                release()
                return result
              }),
            ),
        ),
      )

    const newSettlement: NewSettlement = {
      ...key,
      payee: authorization.to,
      value: authorization.value,
      validAfter: authorization.validAfter,
      validBefore: authorization.validBefore,
      signature,
      requirements: options.requirementsRecord,
      owner: deps.policy.facilitator,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...(options.requestHash === undefined ? {} : { requestHash: options.requestHash }),
    }

    const recordMined = (ref: ClaimRef, receipt: TransferReceipt): Step<SettleOutcome> =>
      pipe(
        deps.journal.markMined(ref, receipt),
        // The funds moved whatever the journal says: a failed write is completed by recovery.
        T.map(() =>
          E.right(
            receipt.succeeded
              ? { _tag: 'Settled', payer, txHash: receipt.txHash, blockNumber: receipt.blockNumber, replayed: false }
              : refused({
                  _tag: 'TransactionReverted',
                  txHash: receipt.txHash,
                  ...(receipt.revertReason ? { reason: receipt.revertReason } : {}),
                }),
          ),
        ),
      )

    const broadcast = (ref: ClaimRef, prepared: PreparedTransfer): Step<SettleOutcome> => {
      const waitMs = Math.min(request.requirements.maxTimeoutSeconds * 1000, deps.policy.receiptTimeoutMs)
      return pipe(
        deps.submitter.send(prepared, waitMs),
        TE.foldW(
          (failure) =>
            failure._tag === 'SendUncertain'
              ? TE.right(pending(prepared.txHash))
              : pipe(
                  deps.submitter.discard(prepared),
                  T.chain(() => deps.journal.markReleased(ref, 'submitted', `refused by the node: ${failure.reason}`)),
                  T.map(() => E.left(chainUnavailable(`the node refused the transaction: ${failure.reason}`))),
                ),
          (outcome) => (outcome._tag === 'Mined' ? recordMined(ref, outcome.receipt) : TE.right(pending(prepared.txHash))),
        ),
      )
    }

    /** The attempt is stored before it is broadcast; a failed write broadcasts nothing and gives the nonce back. */
    const submit = (row: Settlement): Step<SettleOutcome> => {
      const ref: ClaimRef = { id: row.id, generation: row.generation }
      return pipe(
        deps.submitter.prepare(authorization, signature),
        TE.orElseW((down) =>
          pipe(
            deps.journal.markReleased(ref, 'claimed', down.reason),
            T.map(() => E.left(down)),
          ),
        ),
        TE.chainW((prepared) =>
          pipe(
            deps.journal.markSubmitted(ref, { ...prepared, sentAt: deps.clock.now() }),
            TE.chainW((transition) =>
              transition === 'applied'
                ? TE.right(prepared)
                : TE.left(journalUnavailable('the claim was released before its transaction was recorded')),
            ),
            TE.orElseW((failure) =>
              pipe(
                deps.submitter.discard(prepared),
                T.map(() => E.left(failure)),
              ),
            ),
            TE.chainW((recorded) => broadcast(ref, recorded)),
          ),
        ),
      )
    }

    function settleAnew(): Step<SettleOutcome> {
      return pipe(
        verifyPayment(request)(deps),
        TE.chainW((verdict) =>
          verdict._tag === 'Invalid'
            ? refuseWithJournalContext(verdict.failure)
            : withReservation(verdict.payerState, () =>
                pipe(
                  deps.journal.claim(newSettlement),
                  TE.chainW((claim) => (claim._tag === 'Conflict' ? answerExisting(claim.existing) : submit(claim.settlement))),
                ),
              ),
        ),
      )
    }

    const { idempotencyKey } = options
    if (idempotencyKey === undefined) return settleAnew()
    // docs/ARCHITECTURE.md §5.2: a retry under the same key gets the stored outcome; another request under it, 409.
    return pipe(
      deps.journal.findByIdempotencyKey(idempotencyKey),
      TE.map(O.filter(withinWindow)),
      TE.chainW(
        O.match(
          () => settleAnew(),
          (row) => (row.requestHash !== options.requestHash ? TE.right<InfrastructureFailure, SettleOutcome>({ _tag: 'IdempotencyConflict', payer }) : awaitOutcome(row)),
        ),
      ),
    )
  }
