import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Address, Bytes32 } from '../model/payment.js'
import type { MinedTransaction, TokenReader } from '../ports/token-reader.js'
import type { TransferReceipt } from '../ports/transfer-submitter.js'

/**
 * A reverted attempt of ours may have lost to someone who copied the signed authorization (from the mempool) and got it
 * mined first: the payee was paid by that transaction, which is then the settlement's (docs/ARCHITECTURE.md §5.4).
 * None when ours succeeded, when nobody else used it, or when the chain cannot tell now (the revert stands).
 */
export const usedElsewhere = (token: TokenReader, payer: Address, nonce: Bytes32, receipt: TransferReceipt): T.Task<O.Option<MinedTransaction>> =>
  receipt.succeeded
    ? T.of(O.none)
    : pipe(
        token.authorizationUsedBy(payer, nonce, receipt.blockNumber),
        TE.map(O.filter((other) => other.txHash !== receipt.txHash)),
        TE.getOrElse(() => T.of<O.Option<MinedTransaction>>(O.none)),
      )

export const settledElsewhereNote = (other: MinedTransaction, ours: TransferReceipt): string =>
  `authorization used by transaction ${other.txHash} (block ${other.blockNumber}); ours ${ours.txHash} reverted`
