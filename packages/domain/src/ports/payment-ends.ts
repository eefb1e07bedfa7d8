import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../model/failures.js'
import type { TxHash } from '../model/payment.js'
import type { Settlement } from './settlement-row.js'
import type { AuthorizationEnd, MinedTransaction, TransferReceipt } from './transaction-receipt.js'

/**
 * What the chain says of a row's payment beyond our own transactions (docs/ARCHITECTURE.md §5.4–5.5): a copy of it
 * mined by someone else paid it, or its payer cancelled it. `since`: when it was claimed, where a search may stop;
 * `toBlock`: the highest block searched (ended: [the latest]).
 */
export interface PaymentEnds {
  /** The transaction that used the payment (paid it), when another did. */
  readonly usedBy: (
    row: Settlement,
    since: Date,
    toBlock: bigint,
  ) => TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>>
  /** The transaction that ended it, used or cancelled. */
  readonly endedBy: (
    row: Settlement,
    since: Date,
    toBlock?: bigint,
  ) => TE.TaskEither<ChainUnavailable, O.Option<AuthorizationEnd>>
}

/** The receipt of whichever of these transactions (attempts at one payment) was mined, if any. */
export interface TransactionReceipts {
  readonly receiptOf: (txHashes: ReadonlyArray<TxHash>) => TE.TaskEither<ChainUnavailable, O.Option<TransferReceipt>>
}
