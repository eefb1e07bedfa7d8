import type { Permit2Failure } from './permit2-failures.js'

/** @x402/evm 2.27's reason codes for its Permit2 / `upto` checks (docs/ARCHITECTURE.md §3). */
export type Permit2ReasonCode =
  | 'invalid_permit2_spender'
  | 'invalid_permit2_recipient_mismatch'
  | 'permit2_token_mismatch'
  | 'permit2_amount_mismatch'
  | 'permit2_not_yet_valid'
  | 'permit2_deadline_expired'
  | 'upto_facilitator_mismatch'
  | 'invalid_permit2_signature'
  | 'eip2612_from_mismatch'
  | 'eip2612_asset_mismatch'
  | 'eip2612_spender_not_permit2'
  | 'permit2_2612_amount_mismatch'
  | 'eip2612_deadline_expired'
  | 'eip2612_permit_invalid'
  | 'permit2_allowance_in_flight'
  | 'permit2_allowance_required'
  | 'invalid_upto_evm_payload_settlement_exceeds_amount'

declare module '../../model/reason-codes.js' {
  interface MechanismReasonCodes {
    readonly permit2: Permit2ReasonCode
  }
}

/** Wire code and message of a Permit2 rule's failure; `units` words an amount in the token. */
export const explainPermit2Failure = (
  failure: Permit2Failure,
  units: (n: bigint) => string,
): { readonly reasonCode: Permit2ReasonCode; readonly message: string } => {
  switch (failure._tag) {
    case 'Permit2SpenderMismatch':
      return {
        reasonCode: 'invalid_permit2_spender',
        message: `the permit's spender ${failure.spender} is not this scheme's x402 proxy ${failure.expected}`,
      }
    case 'Permit2RecipientMismatch':
      return {
        reasonCode: 'invalid_permit2_recipient_mismatch',
        message: `the permit's witness pays ${failure.actual} but the requirements pay ${failure.expected}`,
      }
    case 'Permit2TokenMismatch':
      return {
        reasonCode: 'permit2_token_mismatch',
        message: `the permit moves token ${failure.token} but the requirements ask for ${failure.expected}`,
      }
    case 'Permit2AmountMismatch':
      return {
        reasonCode: 'permit2_amount_mismatch',
        message: `the permit allows ${units(failure.permitted)} but the requirements ask for ${units(failure.expected)}`,
      }
    case 'Permit2NotYetValid':
      return {
        reasonCode: 'permit2_not_yet_valid',
        message: `permit not yet valid: its witness validAfter ${failure.validAfter} is after now (${failure.now})`,
      }
    case 'Permit2DeadlineExpired':
      return {
        reasonCode: 'permit2_deadline_expired',
        message:
          `permit expired or expires too soon: deadline ${failure.deadline} must be after now + ` +
          `${failure.margin} s (${failure.now + failure.margin})`,
      }
    case 'UptoFacilitatorMismatch':
      return {
        reasonCode: 'upto_facilitator_mismatch',
        message:
          `the upto witness names facilitator ${failure.facilitator ?? '(none)'}, not a key of this facilitator: ` +
          `only that key may settle it`,
      }
    case 'Permit2InvalidSignature':
      return { reasonCode: 'invalid_permit2_signature', message: `invalid Permit2 signature: ${failure.detail}` }
    case 'SponsoredPermitFromMismatch':
      return {
        reasonCode: 'eip2612_from_mismatch',
        message: `the sponsored EIP-2612 permit is from ${failure.from}, not the payer ${failure.payer}`,
      }
    case 'SponsoredPermitAssetMismatch':
      return {
        reasonCode: 'eip2612_asset_mismatch',
        message: `the sponsored EIP-2612 permit is for token ${failure.asset}, not the paid token ${failure.token}`,
      }
    case 'SponsoredPermitSpenderNotPermit2':
      return {
        reasonCode: 'eip2612_spender_not_permit2',
        message: `the sponsored EIP-2612 permit approves ${failure.spender}, not Permit2 (${failure.permit2})`,
      }
    case 'SponsoredPermitAmountMismatch':
      return {
        reasonCode: 'permit2_2612_amount_mismatch',
        message:
          `the sponsored EIP-2612 permit approves ${units(failure.amount)} but the payment moves ` +
          `${units(failure.permitted)}: the proxy requires them equal`,
      }
    case 'SponsoredPermitInvalid':
      return {
        reasonCode: 'eip2612_permit_invalid',
        message:
          `the sponsored EIP-2612 permit would not run (${failure.reason}): its nonce is ${failure.nonce}, the ` +
          `payer's next at the token ${failure.tokenNonce}; sign the permit again, or pay without it`,
      }
    case 'Permit2AllowanceInFlight':
      return {
        reasonCode: 'permit2_allowance_in_flight',
        message:
          failure.conflict === 'SponsoredPermitInFlight'
            ? `a payment of this payer's carrying a sponsored EIP-2612 permit is in flight: that permit sets the ` +
              `allowance to Permit2 to what its own payment spends, so no other Permit2 payment of the payer goes ` +
              `until it has settled; pay again then`
            : `${failure.payments} Permit2 payment(s) of this payer's are in flight, checked against the allowance ` +
              `the sponsored EIP-2612 permit would replace: send it once they have settled, or pay without it`,
      }
    case 'Permit2AllowanceRequired':
      return {
        reasonCode: 'permit2_allowance_required',
        message:
          `the payer's allowance to Permit2 is ${units(failure.allowance)} (less what is in flight), short of ` +
          `${units(failure.required)}: approve Permit2 first, or send an eip2612GasSponsoring permit`,
      }
    case 'UptoAmountExceedsPermitted':
      return {
        reasonCode: 'invalid_upto_evm_payload_settlement_exceeds_amount',
        message: `the amount to settle, ${units(failure.amount)}, exceeds the ${units(failure.permitted)} permitted`,
      }
    case 'SponsoredPermitDeadlineExpired':
      return {
        reasonCode: 'eip2612_deadline_expired',
        message:
          `the sponsored EIP-2612 permit expired or expires too soon: deadline ${failure.deadline} must be after ` +
          `now + ${failure.margin} s (${failure.now + failure.margin})`,
      }
  }
}
