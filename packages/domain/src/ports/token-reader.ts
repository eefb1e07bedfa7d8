import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../model/failures.js'
import type { Address, Bytes32 } from '../model/payment.js'

export interface Eip712Domain {
  readonly name: string
  readonly version: string
  readonly chainId: bigint
  readonly verifyingContract: Address
}

/** What rules 8 and 9 need to know about a payer, read in one round trip. */
export interface PayerState {
  readonly balance: bigint
  /** EIP-3009 `authorizationState(payer, nonce)`: used or cancelled. */
  readonly authorizationUsed: boolean
}

export interface TokenReader {
  /** The token's EIP-712 domain, read once (EIP-5267, else `name()` / `version()`). */
  readonly domain: TE.TaskEither<ChainUnavailable, Eip712Domain>
  readonly payerState: (payer: Address, nonce: Bytes32) => TE.TaskEither<ChainUnavailable, PayerState>
}
