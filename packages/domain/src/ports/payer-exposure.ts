import type * as O from 'fp-ts/lib/Option.js'
import type { Address } from '../model/payment.js'

/**
 * What this replica has in flight per payer (claimed, not yet mined), so that rule 9 does not let two
 * concurrent settles spend the same balance (docs/ARCHITECTURE.md §3 rule 9).
 */
export interface PayerExposure {
  readonly inFlight: (payer: Address) => bigint
  /**
   * Adds `amount` to the payer's in-flight total when `balance - inFlight >= amount`, in one step;
   * the returned function takes it off again.
   */
  readonly reserve: (payer: Address, amount: bigint, balance: bigint) => O.Option<() => void>
}
