import type * as O from 'fp-ts/lib/Option.js'
import type { Address, Bytes32 } from '../model/payment.js'

/** One settle's hold on part of a payer's balance. */
export interface Reservation {
  /** The settle ended and its row with it (settled, refused, nothing broadcast): the amount no longer counts. */
  readonly release: () => void
  /** The settle ended with its transaction still in flight (202 pending): the amount counts until `finished`. */
  readonly keepUntilFinished: (authorization: InFlightKey) => void
}

/** Names the row of one authorization while it is in flight here. */
export type InFlightKey = `${Address}:${Bytes32}`
export const inFlightKey = (payer: Address, nonce: Bytes32): InFlightKey => `${payer}:${nonce}`
export const fromInFlightKey = (key: InFlightKey): { readonly payer: Address; readonly nonce: Bytes32 } => {
  const [payer, nonce] = key.split(':') as [Address, Bytes32]
  return { payer, nonce }
}

/**
 * What this replica has in flight per payer (reserved by a settle, until its row reaches an end state), so that rule 9
 * does not let two settles spend the same balance, nor a settle answered 202 free its amount while its transaction
 * may still be mined (docs/ARCHITECTURE.md §3 rule 9).
 */
export interface PayerExposure {
  readonly inFlight: (payer: Address) => bigint
  /** Adds `amount` to the payer's in-flight total when `balance - inFlight >= amount`, in one step. */
  readonly reserve: (payer: Address, amount: bigint, balance: bigint) => O.Option<Reservation>
  /**
   * Counts a row's amount until it is `finished` (a row recovery finds in flight, e.g. after a restart); once per key.
   */
  readonly holdUntilFinished: (authorization: InFlightKey, payer: Address, amount: bigint) => void
  /** The row reached an end state (confirmed, reverted, released): its amount no longer counts. */
  readonly finished: (authorization: InFlightKey) => void
  /** The rows whose amounts are kept past their settle, for recovery to see whether each has ended. */
  readonly kept: () => ReadonlyArray<{ readonly payer: Address; readonly nonce: Bytes32 }>
}
