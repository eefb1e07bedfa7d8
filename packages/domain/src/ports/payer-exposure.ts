import type * as O from 'fp-ts/lib/Option.js'
import type { Address, PaymentNonce } from '../model/payment.js'

/**
 * How a payment spends its payer's funds, as rule 9′ tells them apart: from its balance itself (`balance`), through an
 * allowance the payer's other such payments share (`allowance`, the EVM's Permit2), or setting that allowance first
 * (`allowance-setter`, a sponsored EIP-2612 permit) [`balance`].
 */
export type PaymentKind = 'balance' | 'allowance' | 'allowance-setter'

/** Rule 9's arithmetic, in one place: what a payer may still spend here, never below zero. */
export const availableBalance = (balance: bigint, inFlight: bigint): bigint =>
  balance > inFlight ? balance - inFlight : 0n

/** A payer's payments through its allowance in flight here: how many, and how many of them set it. */
export interface AllowanceInFlight {
  readonly payments: number
  readonly setters: number
}

/**
 * Why a payment through the allowance may not join this payer's payments in flight, or undefined: one that sets the
 * allowance replaces what every other such payment of the payer was checked against (after it, what is left is its own
 * value less its own payment), so while one is in flight no other goes, and one goes only alone. Else a payment of the
 * payer's mined after it reverts on our gas, and the payer sent no transaction.
 */
export const allowanceConflict = (
  kind: PaymentKind,
  inFlight: AllowanceInFlight,
): 'SetterInFlight' | 'PaymentsInFlight' | undefined => {
  if (kind === 'balance') return undefined
  if (inFlight.setters > 0) return 'SetterInFlight'
  return kind === 'allowance-setter' && inFlight.payments > 0 ? 'PaymentsInFlight' : undefined
}

/** One settle's hold on part of a payer's balance. */
export interface Reservation {
  /** The settle ended and its row with it (settled, refused, nothing broadcast): the amount no longer counts. */
  readonly release: () => void
  /** The settle ended with its transaction still in flight (202 pending): the amount counts until `finished`. */
  readonly keepUntilFinished: (payment: InFlightKey) => void
}

/** Names the row of one payment while it is in flight here. */
export type InFlightKey = `${Address}:${PaymentNonce}`
export const inFlightKey = (payer: Address, nonce: PaymentNonce): InFlightKey => `${payer}:${nonce}`
export const fromInFlightKey = (key: InFlightKey): { readonly payer: Address; readonly nonce: PaymentNonce } => {
  const [payer, nonce] = key.split(':') as [Address, PaymentNonce]
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
   * The payer's payments through its allowance in flight here: how many, and how many set it (rule 9′: such a payment
   * replaces the allowance the others were checked against).
   */
  readonly allowanceInFlight: (payer: Address) => AllowanceInFlight
  /**
   * Adds `amount` to the payer's in-flight total when `balance - inFlight >= amount` and, for a payment through the
   * allowance, no setter meets another such payment in flight (`allowanceConflict`), in one step.
   */
  readonly reserve: (payer: Address, amount: bigint, balance: bigint, kind?: PaymentKind) => O.Option<Reservation>
  /**
   * Counts a row's amount until it is `finished` (a row recovery finds in flight, e.g. after a restart); once per key.
   */
  readonly holdUntilFinished: (payment: InFlightKey, payer: Address, amount: bigint, kind?: PaymentKind) => void
  /** The row reached an end state (confirmed, reverted, released): its amount no longer counts. */
  readonly finished: (payment: InFlightKey) => void
  /** The rows whose amounts are kept past their settle, for recovery to see whether each has ended. */
  readonly kept: () => ReadonlyArray<{ readonly payer: Address; readonly nonce: PaymentNonce }>
}
