import type { EvmAddress as Address } from './evm-hex.js'

/**
 * The Permit2 / `upto` rules a request did not pass (docs/ARCHITECTURE.md §3, rules P1–P3, 4b', 5c', 6', 7', E1):
 * answers (HTTP 200) like every `VerifyFailure`, worded in permit2-reason-codes.ts.
 */
export type Permit2Failure =
  | { readonly _tag: 'Permit2SpenderMismatch'; readonly spender: Address; readonly expected: Address }
  | { readonly _tag: 'Permit2RecipientMismatch'; readonly actual: Address; readonly expected: Address }
  | { readonly _tag: 'Permit2TokenMismatch'; readonly token: Address; readonly expected: Address }
  | { readonly _tag: 'Permit2AmountMismatch'; readonly permitted: bigint; readonly expected: bigint }
  | { readonly _tag: 'Permit2NotYetValid'; readonly validAfter: bigint; readonly now: bigint }
  | {
      readonly _tag: 'Permit2DeadlineExpired'
      readonly deadline: bigint
      readonly now: bigint
      readonly margin: bigint
    }
  | { readonly _tag: 'UptoFacilitatorMismatch'; readonly facilitator?: Address }
  | { readonly _tag: 'Permit2InvalidSignature'; readonly detail: string }
  | { readonly _tag: 'SponsoredPermitFromMismatch'; readonly from: Address; readonly payer: Address }
  | { readonly _tag: 'SponsoredPermitAssetMismatch'; readonly asset: Address; readonly token: Address }
  | { readonly _tag: 'SponsoredPermitSpenderNotPermit2'; readonly spender: Address; readonly permit2: Address }
  | { readonly _tag: 'SponsoredPermitAmountMismatch'; readonly amount: bigint; readonly permitted: bigint }
  /** Rule E1 (on chain): the token's `permit` refuses it (not the owner's next nonce, not the owner's signature). */
  | {
      readonly _tag: 'SponsoredPermitInvalid'
      readonly nonce: bigint
      readonly tokenNonce: bigint
      readonly reason: string
    }
  /**
   * Rule 9′: a sponsored permit of the payer's is in flight (it sets the allowance the others are checked against), or
   * this payment carries one while other Permit2 payments of the payer are in flight.
   */
  | {
      readonly _tag: 'Permit2AllowanceInFlight'
      readonly conflict: 'SponsoredPermitInFlight' | 'Permit2PaymentsInFlight'
      readonly payments: number
    }
  /** Rule 9': the payer's allowance to Permit2 (less what is in flight) is short, and no permit is sponsored. */
  | { readonly _tag: 'Permit2AllowanceRequired'; readonly allowance: bigint; readonly required: bigint }
  /** `upto` settle: the amount asked exceeds what the payer permitted. */
  | { readonly _tag: 'UptoAmountExceedsPermitted'; readonly amount: bigint; readonly permitted: bigint }
  | {
      readonly _tag: 'SponsoredPermitDeadlineExpired'
      readonly deadline: bigint
      readonly now: bigint
      readonly margin: bigint
    }

declare module '../../model/failures.js' {
  interface MechanismFailures {
    readonly permit2: Permit2Failure
  }
}
