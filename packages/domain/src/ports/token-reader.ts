import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../model/failures.js'
import type * as O from 'fp-ts/lib/Option.js'
import type { Address, Bytes32, Hex } from '../model/payment.js'

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
  /**
   * The transaction that used this authorization (EIP-3009 `AuthorizationUsed(payer, nonce)`), mined at or before
   * `upToBlock`: when ours reverted because someone sent the same signed authorization first, the payee was paid by that
   * one.
   */
  readonly authorizationUsedBy: (payer: Address, nonce: Bytes32, upToBlock: bigint) => TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>>
}

/** A transaction mined on the chain: its hash and block. */
export interface MinedTransaction {
  readonly txHash: Hex
  readonly blockNumber: bigint
}
