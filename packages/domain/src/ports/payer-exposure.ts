import type * as O from 'fp-ts/lib/Option.js'
import type { Address, Authorization, Bytes32 } from '../model/payment.js'

/**
 * How a payment moves the token, as rule 9′ tells them apart: a Permit2 payment spends the payer's allowance to
 * Permit2, and one carrying a sponsored EIP-2612 permit first *sets* that allowance [`token`: EIP-3009].
 */
export type PaymentKind = 'token' | 'permit2' | 'sponsored-permit2'

export const paymentKindOf = (permit2: Authorization['permit2']): PaymentKind =>
  permit2 === undefined ? 'token' : permit2.sponsoredPermit === undefined ? 'permit2' : 'sponsored-permit2'

/** Rule 9's arithmetic, in one place: what a payer may still spend here, never below zero. */
export const availableBalance = (balance: bigint, inFlight: bigint): bigint =>
  balance > inFlight ? balance - inFlight : 0n

export interface Permit2InFlight {
  readonly payments: number
  readonly sponsored: number
}

/**
 * Why a Permit2 payment may not join this payer's payments in flight, or undefined: a sponsored permit replaces the
 * allowance every other Permit2 payment of the payer was checked against (after it, what is left is its own value less
 * its own payment), so while one is in flight no other Permit2 payment goes, and one goes only alone. Else one
 * payment of the payer's mined after the permit reverts on our gas, and the payer sent no transaction.
 */
export const permit2Conflict = (
  kind: PaymentKind,
  inFlight: Permit2InFlight,
): 'SponsoredPermitInFlight' | 'Permit2PaymentsInFlight' | undefined => {
  if (kind === 'token') return undefined
  if (inFlight.sponsored > 0) return 'SponsoredPermitInFlight'
  return kind === 'sponsored-permit2' && inFlight.payments > 0 ? 'Permit2PaymentsInFlight' : undefined
}

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
  /**
   * The payer's Permit2 payments in flight here: how many, and how many carry a sponsored EIP-2612 permit (rule 9′:
   * such a permit sets the allowance the others were checked against).
   */
  readonly permit2InFlight: (payer: Address) => Permit2InFlight
  /**
   * Adds `amount` to the payer's in-flight total when `balance - inFlight >= amount` and, for a Permit2 payment, no
   * sponsored permit meets another Permit2 payment in flight (`permit2Conflict`), in one step.
   */
  readonly reserve: (payer: Address, amount: bigint, balance: bigint, kind?: PaymentKind) => O.Option<Reservation>
  /**
   * Counts a row's amount until it is `finished` (a row recovery finds in flight, e.g. after a restart); once per key.
   */
  readonly holdUntilFinished: (authorization: InFlightKey, payer: Address, amount: bigint, kind?: PaymentKind) => void
  /** The row reached an end state (confirmed, reverted, released): its amount no longer counts. */
  readonly finished: (authorization: InFlightKey) => void
  /** The rows whose amounts are kept past their settle, for recovery to see whether each has ended. */
  readonly kept: () => ReadonlyArray<{ readonly payer: Address; readonly nonce: Bytes32 }>
}
