import type * as O from 'fp-ts/lib/Option.js'
import type * as T from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../../model/failures.js'
import type { EvmAttempt } from '../model/evm-row.js'
import type { EvmAddress as Address, Hex } from '../model/evm-hex.js'
import type { Authorization } from '../model/evm-payment.js'

/** A signed `transferWithAuthorization` transaction that has not necessarily left the process. */
export interface PreparedTransfer extends Omit<EvmAttempt, 'sentAt' | 'batchIndex'> {
  /**
   * Its gas limit, when the submitter says (not stored: what a payer with code's lone send reserves, penalty-box.ts).
   */
  readonly gasLimit?: bigint
}

import type { BatchItemOutcome, TransferReceipt } from '../../ports/transaction-receipt.js'
export type { BatchItemOutcome, TransferReceipt }

/** One payment of a settler batch. */
export interface BatchItem {
  readonly authorization: Authorization
  readonly signature: Hex
  /** What the trial of the payment used (rule 10); unset: the settler's per-payment bound. */
  readonly executionGas?: bigint
  /**
   * The payer is a contract (rule 7 accepted the signature through ERC-1271, not by the payer's key): its wallet may
   * burn more in the block than in its trial, so a batch budgets it its full per-item bound.
   */
  readonly payerHasCode?: boolean
  /**
   * The gas its trial gave the call (rule 10): a payer with code sent alone gets at least that (`ContractPayerGas`).
   */
  readonly trialGasCap?: bigint
}

/**
 * A lone transfer of a payer with code: its transaction gives the call at least the gas its trial had (`trialGasCap`;
 * unset: the most a transfer may have), never a limit derived from what the trial used — a wallet may burn when it
 * gets less gas than in its trial (docs/ARCHITECTURE.md §5.7).
 */
export interface ContractPayerGas {
  readonly trialGasCap?: bigint
}

export type SendOutcome =
  | { readonly _tag: 'Mined'; readonly receipt: TransferReceipt }
  /** Accepted by the node, no receipt within the wait: the journal follows it to its end. */
  | { readonly _tag: 'Unconfirmed' }

export type SendFailure =
  /** The node refused the transaction: it will never be mined as it is; `keyRefused`: for its key's want of ETH. */
  /** `unreachable`: no node was reached (nothing was broadcast now, but an earlier broadcast may be in a pool). */
  | { readonly _tag: 'SendRejected'; readonly reason: string; readonly keyRefused?: true; readonly unreachable?: true }
  /** The node may or may not have it (timeout, connection lost mid-call). */
  | { readonly _tag: 'SendUncertain'; readonly reason: string }

/** What `prepareReplacement` came to. */
export type Replacement =
  | { readonly _tag: 'Prepared'; readonly transfer: PreparedTransfer }
  /**
   * The fee cap leaves no room for the 10 % raise nodes require: the previous attempt is the best there can be (one
   * signed again at its fees would be the same bytes, RFC 6979), so it is what to send again.
   */
  | { readonly _tag: 'AtFeeCap' }

export interface TransferSubmitter {
  /**
   * Signs the transfer with the next account nonce of the facilitator key; nothing is broadcast. `executionGas`: what
   * the trial of this transfer used (rule 10), from which the gas limit is set; unset, the submitter's default.
   * `contractPayer`: the payer has code, its gas limit set from its trial's cap instead.
   */
  readonly prepare: (
    authorization: Authorization,
    signature: Hex,
    executionGas?: bigint,
    contractPayer?: ContractPayerGas,
  ) => TE.TaskEither<ChainUnavailable, PreparedTransfer>
  /**
   * Signs one call of the batch settler for these payments (item `i` is `items[i]`) with the next account nonce;
   * nothing is broadcast. Absent: this submitter has no settler, every payment is its own transaction.
   */
  readonly prepareBatch?: (items: ReadonlyArray<BatchItem>) => TE.TaskEither<ChainUnavailable, PreparedTransfer>
  /**
   * Whether a settler call may carry this payment: not when its trial, with margin, needs more than the settler's
   * per-item bound (it would run out of gas in the batch). Absent: every payment may.
   */
  readonly mayBatch?: (item: BatchItem) => boolean
  /** How many of `items`, in order, one settler call can carry (its gas and size bounds; at least one). */
  readonly batchFits?: (items: ReadonlyArray<BatchItem>) => number
  /** Gives back the nonce of a transfer that will never be broadcast, so that no gap stalls later ones. */
  readonly discard: (prepared: PreparedTransfer) => T.Task<void>
  /**
   * A transfer this process will not broadcast (again), but that a row may still name (its write's, or its release's,
   * outcome is unknown): its nonce is never handed out again; recovery adopts it (a recorded attempt is broadcast) or
   * fills the gap (none is recorded).
   */
  readonly abandon: (prepared: PreparedTransfer) => T.Task<void>
  /** Broadcasts and waits up to `waitMs` for the receipt. */
  readonly send: (prepared: PreparedTransfer, waitMs: number) => TE.TaskEither<SendFailure, SendOutcome>
  /**
   * Waits up to `waitMs` more for the receipt of a transaction `send` already broadcast (one more waiter of it: each
   * payment of a batch waits as long as its own request allows); none when the wait ends first.
   */
  readonly waitForReceipt: (prepared: PreparedTransfer, waitMs: number) => T.Task<O.Option<TransferReceipt>>
  /** The receipt of whichever of these transactions (attempts at one nonce) was mined, if any. */
  readonly receiptOf: (txHashes: ReadonlyArray<Hex>) => TE.TaskEither<ChainUnavailable, O.Option<TransferReceipt>>
  /**
   * Re-sends stored raw bytes (a dropped transaction) signed by `sender`; "already known" counts as sent. Another
   * account's transaction (a dead replica's, another key's) leaves this account's nonce bookkeeping alone.
   * `replacing`: the transaction these bytes replace; whoever waits for its receipt takes this one's too.
   */
  readonly rebroadcast: (raw: Hex, sender: Address, replacing?: Hex) => TE.TaskEither<SendFailure, void>
  /**
   * Tells `listener` the hash of this account's lowest transaction waiting when the chain leaves it unmined for a
   * while though later ones of the account wait behind it (a node parked or dropped it, its fees fell behind).
   */
  readonly onStalled?: (listener: (txHash: Hex) => void) => void
  /**
   * A new attempt carrying exactly the call of `previous` (its recipient, calldata and gas limit: the same payments of
   * a batch), at the same account nonce with both fees raised by at least 10 %, within the fee cap.
   */
  readonly prepareReplacement: (previous: PreparedTransfer) => TE.TaskEither<ChainUnavailable, Replacement>
  /**
   * Fills every nonce of this facilitator's account that is neither mined, nor among `recorded` (the nonces of its
   * journalled attempts), nor handed out in this process, below the highest of `recorded`, with a zero-value
   * transfer to itself: a nonce whose transaction was never broadcast (a crash between signing and recording, a
   * failure before broadcast) would otherwise hold every later transaction of the account back. Answers the nonces
   * filled.
   */
  readonly fillNonceGaps: (recorded: ReadonlyArray<bigint>) => TE.TaskEither<ChainUnavailable, ReadonlyArray<bigint>>
  /** How many transactions of an account are mined (its next unmined nonce); recovery asks for a row owner's. */
  readonly minedNonce: (account: Address) => TE.TaskEither<ChainUnavailable, bigint>
  /**
   * Whether the node holds any of these transactions (attempts at one nonce), in its pool or mined: one it holds can
   * still be mined, so the row is not released while it does.
   */
  readonly heldByNode: (txHashes: ReadonlyArray<Hex>) => TE.TaskEither<ChainUnavailable, boolean>
}
