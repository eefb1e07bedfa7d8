import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../../model/failures.js'
import type * as O from 'fp-ts/lib/Option.js'
import type { EvmAddress as Address, Bytes32, Hex } from '../model/evm-hex.js'
import type { Authorization, TransferMethod } from '../model/evm-payment.js'

export interface Eip712Domain {
  readonly name: string
  readonly version: string
  readonly chainId: bigint
  readonly verifyingContract: Address
}

/** What rules 8 and 9 need to know about a payer, read in one round trip. */
export interface PayerState {
  readonly balance: bigint
  /** EIP-3009 `authorizationState(payer, nonce)`, or Permit2's `nonceBitmap` bit: used or cancelled. */
  readonly authorizationUsed: boolean
  /** A Permit2 payment's: the token's `allowance(payer, Permit2)` (rule 9'). */
  readonly permit2Allowance?: bigint
}

/**
 * The settle's own transaction run as an `eth_call` (docs/ARCHITECTURE.md §3, rule 10): what the token would do with
 * it at the latest block.
 */
export type TransferTrial =
  /**
   * `gasUsed`: what the call itself used, for the transaction's gas limit; `gasCap`: the gas the trial gave the call
   * (a payer with code is given at least that by its settle, docs/ARCHITECTURE.md §5.7), when known.
   */
  | { readonly _tag: 'WouldSucceed'; readonly gasUsed: bigint; readonly gasCap?: bigint }
  /** The token's own flags, read when the call failed, name the cause; `reason` is its revert message, if any. */
  | {
      readonly _tag: 'WouldRevert'
      readonly paused: boolean
      readonly payerBlacklisted: boolean
      readonly payeeBlacklisted: boolean
      readonly reason?: string
    }
  /**
   * Not tried: the node's latest block is older than `validAfter`, so the token would refuse what a new block takes.
   */
  | { readonly _tag: 'NotTried'; readonly why: string }

/** Rules 8–10's reads of one payment, from one round trip. */
/**
 * Whether the sponsored EIP-2612 permit a Permit2 payment carries would run: the token's own `permit`, tried at the
 * latest block (its nonce the owner's next, its signature the owner's). The proxy goes on when it fails, so only this
 * tells a forged permit from a genuine one. `tokenNonce`: the owner's next permit nonce at the token.
 */
export type SponsoredPermitTrial =
  { readonly _tag: 'Runs' } | { readonly _tag: 'WouldNotRun'; readonly tokenNonce: bigint; readonly reason: string }

export interface PaymentTrial extends PayerState {
  readonly transfer: TransferTrial
  /** A payment carrying a sponsored EIP-2612 permit: whether it would run (unset for any other). */
  readonly sponsoredPermit?: SponsoredPermitTrial
  /**
   * The payer's address holds code at the trial's block: a contract, or an EOA delegated by EIP-7702 (whose signature
   * recovers to its key, yet the token hands it to its `isValidSignature`). Unset: not read (rule 7's path alone
   * tells).
   */
  readonly payerHasCode?: boolean
}

export interface TokenReader {
  /** The token's EIP-712 domain, read once (EIP-5267, else `name()` / `version()`). */
  readonly domain: TE.TaskEither<ChainUnavailable, Eip712Domain>
  /** `method` names the nonce's keeper: the token (EIP-3009, the default) or Permit2. */
  readonly payerState: (
    payer: Address,
    nonce: Bytes32,
    method?: TransferMethod,
  ) => TE.TaskEither<ChainUnavailable, PayerState>
  /** The payer's state and a trial of the exact transaction a settle of this payment would send. */
  readonly trialPayment: (authorization: Authorization, signature: Hex) => TE.TaskEither<ChainUnavailable, PaymentTrial>
  /**
   * The transaction that used this authorization (EIP-3009 `AuthorizationUsed(payer, nonce)`; Permit2: a proxy call
   * with its nonce whose receipt holds the token's `Transfer(payer, payee, value)`), mined at or before `upToBlock`:
   * when ours reverted because someone sent the same signed authorization first, the payee was paid by that one.
   * `claimedAt`: when the payment was claimed (its row's creation); with `validAfter`, it bounds how far back the
   * search reads.
   */
  readonly authorizationUsedBy: (
    authorization: Authorization,
    claimedAt: Date,
    upToBlock: bigint,
  ) => TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>>
  /**
   * The transaction that used or cancelled this authorization (the token's `AuthorizationUsed` or
   * `AuthorizationCanceled`; Permit2: as `authorizationUsedBy`, or its `UnorderedNonceInvalidation` holding the nonce),
   * mined at or before `upToBlock` (unset: the latest block), searched back as `authorizationUsedBy`. None when neither
   * is found.
   */
  readonly authorizationEndedBy: (
    authorization: Authorization,
    claimedAt: Date,
    upToBlock?: bigint,
  ) => TE.TaskEither<ChainUnavailable, O.Option<AuthorizationEnd>>
}

import type { AuthorizationEnd, MinedTransaction } from '../../ports/transaction-receipt.js'
export type { AuthorizationEnd, MinedTransaction }
