import type { Address, TokenInfo } from './payment.js'

/** One token a network settles: what clients are told of it (docs/ARCHITECTURE.md §4, `/supported`). */
export interface ServedToken extends TokenInfo {
  /** The token's EIP-712 domain name and version, which EVM clients sign over; none for a Solana mint. */
  readonly eip712?: { readonly name: string; readonly version: string }
  /** The smallest required amount settled, in the token's smallest unit (rule 5b). */
  readonly minAmount: bigint
  /** Whether it answers EIP-2612 (`nonces`, `DOMAIN_SEPARATOR`), read at start-up: a permit can be sponsored. */
  readonly eip2612?: boolean
  /** `false`: paid through Permit2 on a network without the upto proxy, so `exact` alone [upto with Permit2]. */
  readonly upto?: false
}

/** One network this facilitator serves; its first token is its default (the one today's clients read). */
export interface ServedNetwork {
  /** The spec dialect's name (`network` of a spec request, e.g. `base-sepolia`). */
  readonly name: string
  /** CAIP-2 (`eip155:<chainId>`): the x402 v2 dialect's name of it. */
  readonly caip2: string
  /** Every account that signs settlements on it. */
  readonly signers: ReadonlyArray<Address>
  readonly tokens: ReadonlyArray<ServedToken>
}
