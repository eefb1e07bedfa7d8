import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import type { JournalUnavailable } from '../model/failures.js'
import type { Address, PaymentNonce, FacilitatorPolicy, TxHash } from '../model/payment.js'
import type { Settlement } from '../ports/settlement-row.js'
import type { SettlementLookups } from '../ports/journal/settlement-lookups.js'
import { settlementKey } from '../ports/settlement-row.js'

export type SettlementQuery =
  | { readonly _tag: 'ByTxHash'; readonly txHash: TxHash }
  | { readonly _tag: 'ByAuthorization'; readonly payer: Address; readonly nonce: PaymentNonce }

export interface LookUpDeps {
  readonly policy: FacilitatorPolicy
  readonly journal: SettlementLookups
}

/** The journal's view of one settlement: how a caller whose settle timed out learns the outcome. */
export const lookUpSettlement =
  (query: SettlementQuery): RTE.ReaderTaskEither<LookUpDeps, JournalUnavailable, O.Option<Settlement>> =>
  ({ policy, journal }) =>
    query._tag === 'ByTxHash'
      ? journal.findByTxHash(query.txHash)
      : journal.findByKey(settlementKey(policy, query.payer, query.nonce))
