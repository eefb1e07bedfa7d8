import type { SettleRefusal, VerifyFailure } from '../../model/failures.js'
import type { Address, TxHash } from '../../model/payment.js'
import type { Reservation } from '../../ports/payer-exposure.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { SubmissionItem } from '../../ports/submissions.js'

/** What a settle answers (docs/ARCHITECTURE.md §5); an infrastructure failure (503) is the TaskEither's left. */
export type SettleOutcome =
  | {
      readonly _tag: 'Settled'
      readonly payer: Address
      readonly txHash: TxHash
      readonly blockNumber: bigint
      /** The hash of that block, when the node gave it: the receipt names it (model/settlement-receipt.ts). */
      readonly blockHash?: TxHash
      /** The row was final when answered (`SETTLE_WAIT_FOR=final`). */
      readonly final?: true
      readonly replayed: boolean
      /** Blocks on top of `blockNumber` at the head last seen (docs/ARCHITECTURE.md §5.6), when known. */
      readonly confirmations?: number
      /**
       * When the payment's row was claimed: the time its receipt names, the same for every answer of the payment (a
       * replay signs what the first answer signed).
       */
      readonly recordedAt?: Date
    }
  | { readonly _tag: 'Refused'; readonly payer: Address; readonly refusal: VerifyFailure | SettleRefusal }
  /**
   * Broadcast, no receipt within the bound: the journal follows it; never a bare failure (docs/ARCHITECTURE.md §4).
   */
  | { readonly _tag: 'Pending'; readonly payer: Address; readonly txHash: TxHash }
  /** An `upto` settle of 0: success, nothing sent (`replayed`: the stored answer of an earlier one). */
  | { readonly _tag: 'Waived'; readonly payer: Address; readonly replayed: boolean }
  /** The `Idempotency-Key` was used with another request. */
  | { readonly _tag: 'IdempotencyConflict'; readonly payer: Address }

export type SettledOutcome = Extract<SettleOutcome, { readonly _tag: 'Settled' }>

/** The outcomes a settle answers, each naming the payer. */
export const settleAnswers = (payer: Address) => {
  const refused = (refusal: VerifyFailure | SettleRefusal): SettleOutcome => ({ _tag: 'Refused', payer, refusal })
  return {
    settled: (
      txHash: TxHash,
      blockNumber: bigint,
      replayed: boolean,
      blockHash: TxHash | undefined,
      recordedAt: Date,
    ): SettledOutcome => ({
      _tag: 'Settled',
      payer,
      txHash,
      blockNumber,
      ...(blockHash === undefined ? {} : { blockHash }),
      replayed,
      recordedAt,
    }),
    refused,
    pending: (txHash: TxHash): SettleOutcome => ({ _tag: 'Pending', payer, txHash }),
    waived: (replayed: boolean): SettleOutcome => ({ _tag: 'Waived', payer, replayed }),
    // Spread rather than `txHash: row.txHash`: a refusal without a transaction has no `txHash` key at all.
    alreadySettling: (row: Settlement): SettleOutcome =>
      refused({ _tag: 'AlreadySettling', state: row.state, ...(row.txHash ? { txHash: row.txHash } : {}) }),
    idempotencyConflict: (): SettleOutcome => ({ _tag: 'IdempotencyConflict', payer }),
  }
}

export type SettleAnswers = ReturnType<typeof settleAnswers>

/**
 * Where one turn of the settle leads (settle-payment.ts): its answer; or a new turn from verify, the row it met
 * released (nothing of it reached the chain); or a new claim of the same payment sent alone before `deadline` (clock
 * ms), its batch having not run it, still holding its `reservation`.
 */
export type Turn =
  | { readonly _tag: 'Answer'; readonly outcome: SettleOutcome }
  | { readonly _tag: 'Anew' }
  | {
      readonly _tag: 'Alone'
      readonly item: SubmissionItem
      readonly deadline: number
      readonly reservation: Reservation
    }

export const answer = (outcome: SettleOutcome): Turn => ({ _tag: 'Answer', outcome })
