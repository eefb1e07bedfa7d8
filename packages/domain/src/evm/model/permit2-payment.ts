import type { PaymentRequirements } from './evm-payment.js'
import type { EvmAddress as Address, Bytes32, Hex } from './evm-hex.js'
import type { PaymentRequest } from './evm-payment.js'

/**
 * A Permit2 `PermitWitnessTransferFrom`, canonical (x402 v2 `exact` with `assetTransferMethod: "permit2"`, and
 * `upto`): the payer lets `spender` (the scheme's x402 proxy) move `permitted` to `witness.to`.
 */
export interface Permit2Authorization {
  readonly from: Address
  readonly permitted: { readonly token: Address; readonly amount: bigint }
  readonly spender: Address
  /** Permit2's uint256 nonce as bytes32: one nonce space per owner, across every token and spender. */
  readonly nonce: Bytes32
  readonly deadline: bigint
  /** `facilitator`: `upto` only, the one key its proxy accepts as the transaction's sender. */
  readonly witness: { readonly to: Address; readonly validAfter: bigint; readonly facilitator?: Address }
}

/** The `eip2612GasSponsoring` extension's `info`: an EIP-2612 permit of the token to Permit2, sent with the payment. */
export interface SponsoredPermit {
  readonly from: Address
  readonly asset: Address
  readonly spender: Address
  readonly amount: bigint
  readonly nonce: bigint
  readonly deadline: bigint
  readonly signature: Hex
  readonly version: string
}

export interface Permit2PaymentPayload {
  /** Major protocol version (`"2.0"` → 2). */
  readonly x402Version: number
  readonly scheme: string
  readonly network: string
  readonly signature: Hex
  readonly permit2Authorization: Permit2Authorization
  readonly sponsoredPermit?: SponsoredPermit
}

/** A verify or settle request paying through Permit2 (x402 v2 dialect only). */
export interface Permit2PaymentRequest {
  readonly payload: Permit2PaymentPayload
  readonly requirements: PaymentRequirements
}

/**
 * Any decoded request: EIP-3009 (`PaymentRequest`, what every use case settles) or Permit2, which
 * rules/transfer-rules.ts (`paymentOf`) reads onto the authorization fields after its own rules.
 */
export type AnyPaymentRequest = PaymentRequest | Permit2PaymentRequest

export const isPermit2Request = (request: AnyPaymentRequest): request is Permit2PaymentRequest =>
  'permit2Authorization' in request.payload

/** Who pays, whatever the transfer method. */
export const payerOf = (request: AnyPaymentRequest): Address =>
  isPermit2Request(request) ? request.payload.permit2Authorization.from : request.payload.authorization.from
