import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../../model/failures.js'
import type { EvmAddress as Address, Hex } from '../model/evm-hex.js'
import type { Authorization } from '../model/evm-payment.js'

export type SignatureCheck =
  /**
   * `byKey`: it recovers to the payer's own key (an EOA); otherwise the payer's contract accepted it (ERC-1271,
   * ERC-6492).
   */
  | { readonly _tag: 'SignatureValid'; readonly byKey?: true }
  /** Wrong signer, tampered field, malformed or high-s signature: a rule failure, never an exception. */
  | { readonly _tag: 'SignatureInvalid'; readonly detail: string }
  /** An ERC-6492 signature of a wallet not deployed yet, whose factory is not on the operator's allowlist. */
  | { readonly _tag: 'FactoryNotAllowed'; readonly factory: Address }

/** EIP-712 `TransferWithAuthorization` recovery over the token's own domain. */
export interface SignatureVerifier {
  readonly checkAuthorization: (
    authorization: Authorization,
    signature: Hex,
  ) => TE.TaskEither<ChainUnavailable, SignatureCheck>
}
