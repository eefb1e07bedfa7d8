import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { TxHash } from '../../model/payment.js'
import type { Settlement, SettlementKey } from '../settlement-row.js'

/** A row found by the payment's key, an attempt's transaction, or the request's `Idempotency-Key`. */
export interface SettlementLookups {
  readonly findByKey: (key: SettlementKey) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  /** By any attempt's transaction hash. */
  readonly findByTxHash: (txHash: TxHash) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  readonly findByIdempotencyKey: (key: string) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
}
