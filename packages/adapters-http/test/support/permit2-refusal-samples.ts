import type { Permit2Failure } from '@x402-facilitator/domain'

const PAYER = `0x${'12'.repeat(20)}` as const
const OTHER = `0x${'34'.repeat(20)}` as const

type Samples<Union extends { readonly _tag: string }> = {
  readonly [Tag in Union['_tag']]: { readonly refusal: Extract<Union, { readonly _tag: Tag }>; readonly code: string }
}

/** One Permit2 rule failure of each tag, with 2.27's reason code. */
export const permit2Failures: Samples<Permit2Failure> = {
  Permit2SpenderMismatch: {
    refusal: { _tag: 'Permit2SpenderMismatch', spender: OTHER, expected: PAYER },
    code: 'invalid_permit2_spender',
  },
  Permit2RecipientMismatch: {
    refusal: { _tag: 'Permit2RecipientMismatch', actual: OTHER, expected: PAYER },
    code: 'invalid_permit2_recipient_mismatch',
  },
  Permit2TokenMismatch: {
    refusal: { _tag: 'Permit2TokenMismatch', token: OTHER, expected: PAYER },
    code: 'permit2_token_mismatch',
  },
  Permit2AmountMismatch: {
    refusal: { _tag: 'Permit2AmountMismatch', permitted: 1n, expected: 2n },
    code: 'permit2_amount_mismatch',
  },
  Permit2NotYetValid: {
    refusal: { _tag: 'Permit2NotYetValid', validAfter: 10n, now: 5n },
    code: 'permit2_not_yet_valid',
  },
  Permit2DeadlineExpired: {
    refusal: { _tag: 'Permit2DeadlineExpired', deadline: 10n, now: 9n, margin: 6n },
    code: 'permit2_deadline_expired',
  },
  UptoFacilitatorMismatch: {
    refusal: { _tag: 'UptoFacilitatorMismatch', facilitator: OTHER },
    code: 'upto_facilitator_mismatch',
  },
  Permit2InvalidSignature: {
    refusal: { _tag: 'Permit2InvalidSignature', detail: 'recovers another address' },
    code: 'invalid_permit2_signature',
  },
  SponsoredPermitFromMismatch: {
    refusal: { _tag: 'SponsoredPermitFromMismatch', from: OTHER, payer: PAYER },
    code: 'eip2612_from_mismatch',
  },
  SponsoredPermitAssetMismatch: {
    refusal: { _tag: 'SponsoredPermitAssetMismatch', asset: OTHER, token: PAYER },
    code: 'eip2612_asset_mismatch',
  },
  SponsoredPermitSpenderNotPermit2: {
    refusal: { _tag: 'SponsoredPermitSpenderNotPermit2', spender: OTHER, permit2: PAYER },
    code: 'eip2612_spender_not_permit2',
  },
  SponsoredPermitAmountMismatch: {
    refusal: { _tag: 'SponsoredPermitAmountMismatch', amount: 1n, permitted: 2n },
    code: 'permit2_2612_amount_mismatch',
  },
  SponsoredPermitInvalid: {
    refusal: { _tag: 'SponsoredPermitInvalid', nonce: 3n, tokenNonce: 2n, reason: 'EIP2612: invalid signature' },
    code: 'eip2612_permit_invalid',
  },
  Permit2AllowanceInFlight: {
    refusal: { _tag: 'Permit2AllowanceInFlight', conflict: 'SponsoredPermitInFlight', payments: 1 },
    code: 'permit2_allowance_in_flight',
  },
  SponsoredPermitDeadlineExpired: {
    refusal: { _tag: 'SponsoredPermitDeadlineExpired', deadline: 10n, now: 9n, margin: 6n },
    code: 'eip2612_deadline_expired',
  },
  Permit2AllowanceRequired: {
    refusal: { _tag: 'Permit2AllowanceRequired', allowance: 1n, required: 2n },
    code: 'permit2_allowance_required',
  },
  UptoAmountExceedsPermitted: {
    refusal: { _tag: 'UptoAmountExceedsPermitted', amount: 3n, permitted: 2n },
    code: 'invalid_upto_evm_payload_settlement_exceeds_amount',
  },
}
