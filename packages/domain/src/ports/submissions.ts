import type * as E from 'fp-ts/lib/Either.js'
import type { InfrastructureFailure, SettleRefusal } from '../model/failures.js'
import type { TxHash } from '../model/payment.js'
import type { ClaimRef, SettlementKey } from './settlement-row.js'
import type { TransferReceipt } from './transaction-receipt.js'

/**
 * Where a settle hands its claimed payment to be signed, recorded and broadcast, alone or batched with others
 * (the EVM mechanism's evm/submission/submission-queue.ts, one per lane), and gets back what became of its transaction.
 */
export interface SubmissionQueue {
  readonly submit: (submission: Submission) => Promise<SubmissionResult>
}

/**
 * What a settle submits of a payment, as its mechanism made it (`ValidPayment.item`): the core reads only these; the
 * mechanism's submission queue reads the rest of its own items.
 */
export interface SubmissionItem {
  /** The bytes the settle sends, the ones verify tried: its claimed row stores them. */
  readonly signature: string
  /** The payer's address holds code: a payment the penalty box treats as a contract's (§5.7). */
  readonly payerHasCode?: boolean
}

/** One claimed payment waiting for its transaction. */
export interface Submission {
  readonly ref: ClaimRef
  readonly key: SettlementKey
  readonly item: SubmissionItem
  /** How long its settle may wait for the receipt. */
  readonly waitMs: number
  /**
   * Its receipt, when it comes after the settle stopped waiting (answered 202) but while another payment of its batch
   * still waits: recorded then, rather than left to recovery.
   */
  readonly onLateReceipt?: (receipt: TransferReceipt) => void
  /**
   * Its row released after its settle stopped waiting (its batch did not run it): nothing of it can move any more, so
   * what its 202 kept of the payer's balance (rule 9) ends, and the caller's retry may settle it anew.
   */
  readonly onLateRelease?: () => void
  /** It goes in its own transaction, never in a batch (a payment a batch did not run, sent again). */
  readonly alone?: boolean
}

/** What became of a payment's transaction once broadcast: its own receipt (its item's, in a batch), or not yet. */
export type Sent =
  /**
   * `batched`: the receipt is the payment's item's in a settler batch; `sentAt`: when it was broadcast (clock ms);
   * `burntItsBound`: its failed item used ≥ 31/32 of the item bound (it ran out of gas: never sent again alone,
   * docs/ARCHITECTURE.md §5.7).
   */
  | {
      readonly _tag: 'Mined'
      readonly receipt: TransferReceipt
      readonly batched: boolean
      readonly sentAt: number
      readonly burntItsBound?: true
    }
  | { readonly _tag: 'Pending'; readonly txHash: TxHash }
  /** The settler did not run its item (docs/ARCHITECTURE.md §5.7): the row is released, nothing of it moved. */
  | { readonly _tag: 'NotRun'; readonly reason: string; readonly sentAt: number }
  /**
   * Not sent: its payer has code and the gas in flight for such payers is spent (penalty-box.ts `reserve`); the row is
   * released.
   */
  | { readonly _tag: 'Refused'; readonly refusal: SettleRefusal }

export type SubmissionResult = E.Either<InfrastructureFailure, Sent>
