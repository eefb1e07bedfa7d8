import type { EvmAddress as Address, Bytes32, EvmAddress, Hex } from './evm-hex.js'

/**
 * The transfer a payer signed, canonical: the EIP-3009 `TransferWithAuthorization` fields, or (with `permit2`) a Permit2
 * witness transfer read onto them (docs/ARCHITECTURE.md §3): `to` = `witness.to`, `value` = the amount the transaction
 * moves, `validAfter` = `witness.validAfter`, `validBefore` = `deadline`, `nonce` = Permit2's nonce as bytes32.
 */
export interface Authorization {
  readonly from: Address
  readonly to: Address
  readonly value: bigint
  readonly validAfter: bigint
  readonly validBefore: bigint
  readonly nonce: Bytes32
  /** Absent: EIP-3009. */
  readonly permit2?: Permit2Transfer
}

/** How a payment moves the token: the token's own EIP-3009, or Permit2 through an x402 proxy. */
export type TransferMethod = 'eip3009' | 'permit2'

/**
 * What a Permit2 payment signs beyond the fields every authorization has. Its nonce belongs to the payer across every
 * token and spender (Permit2's `nonceBitmap`), so its claim key's nonce space is Permit2, not the token.
 */
export interface Permit2Transfer {
  readonly scheme: 'exact' | 'upto'
  /** `permitted.amount`, what the signature covers: `value` equals it for `exact`, is at most it for `upto`. */
  readonly permitted: bigint
  /** The x402 proxy the permit names as spender: the contract the transaction calls. */
  readonly spender: Address
  /** `upto`: `witness.facilitator`, the only sender its proxy accepts. */
  readonly facilitator?: Address
  /** An EIP-2612 permit of the token to Permit2 the transaction submits first (`eip2612GasSponsoring`). */
  readonly sponsoredPermit?: SponsoredPermitTerms
}

/** The sponsored EIP-2612 permit as the proxy's `settleWithPermit` takes it (owner: the payer, spender: Permit2). */
export interface SponsoredPermitTerms {
  readonly value: bigint
  readonly nonce: bigint
  readonly deadline: bigint
  /** 65 bytes r ‖ s ‖ v. */
  readonly signature: Hex
}

export interface PaymentPayload {
  /** Major protocol version (`"2.0"` → 2). */
  readonly x402Version: number
  readonly scheme: string
  readonly network: string
  readonly signature: Hex
  readonly authorization: Authorization
}

/** x402's payment requirements, as an EVM request names them. */
export interface PaymentRequirements {
  readonly x402Version: number
  readonly scheme: string
  readonly network: string
  readonly amount: bigint
  readonly asset: Address
  readonly payTo: Address
  readonly maxTimeoutSeconds: number
}

/** One verify or settle request, decoded. */
export interface PaymentRequest {
  readonly payload: PaymentPayload
  readonly requirements: PaymentRequirements
}

/** Where Permit2 and the x402 proxies live on a network (lower case, as every address in the domain). */
export interface Permit2Contracts {
  readonly permit2: Address
  /** `x402ExactPermit2Proxy`: the spender of a Permit2 `exact` payment. */
  readonly exactProxy: Address
  /**
   * `x402UptoPermit2Proxy`: the spender of an `upto` payment; none where it is not deployed
   * (`UPTO_PERMIT2_PROXY_ADDRESS=none`): Permit2 `exact` alone, `upto` refused (rule 2a').
   */
  readonly uptoProxy?: Address
}

declare module '../../model/payment.js' {
  interface FacilitatorPolicy {
    /** Permit2 and the x402 proxies on this network: set when its token may be paid through Permit2. */
    readonly permit2?: Permit2Contracts
    /** This replica's keys on the network: the senders an `upto` witness may name (rule P2). */
    readonly uptoFacilitators?: ReadonlyArray<EvmAddress>
  }
  interface TokenInfo {
    /** How this token may be paid (configured per token) [EIP-3009 only]. */
    readonly transferMethods?: ReadonlyArray<TransferMethod>
  }
}
