import {
  type EvmAddress as Address,
  type Authorization,
  type ChainUnavailable,
  type SignatureCheck,
} from '@x402-facilitator/domain'
import { isAllowedFactory, type Erc6492Wrapper } from './erc6492-signature.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { hasCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import type { Erc1271Check } from './erc1271-check.js'
import { makeErc6492Validation, type Erc6492Validation, type Erc6492Verdict } from './erc6492-validation.js'
import { tryRpc } from '../rpc/rpc-failure.js'

export interface Erc6492CheckOptions {
  readonly rpc: ChainRpc
  /** `ERC6492_FACTORIES`: the factories a settle may call to deploy a payer [none]. */
  readonly allowedFactories: ReadonlyArray<Address>
  readonly erc1271: Erc1271Check
  /** [a deployless `eth_call` of contracts/Erc6492Validator.sol] */
  readonly validation?: Erc6492Validation
}

/** Rule 7 for an ERC-6492 wrapped signature, given the wrapper and the authorization's EIP-712 digest. */
export type Erc6492SignatureCheck = (
  authorization: Authorization,
  wrapper: Erc6492Wrapper,
  digest: Uint8Array,
) => TE.TaskEither<ChainUnavailable, SignatureCheck>

const VALID: SignatureCheck = { _tag: 'SignatureValid' }
const invalid = (detail: string): SignatureCheck => ({ _tag: 'SignatureInvalid', detail })

const explainVerdict = (
  verdict: Erc6492Verdict | { readonly failed: string },
  payer: Address,
  factory: Address,
): SignatureCheck => {
  if (typeof verdict !== 'string') return invalid(`the ERC-6492 validation call failed: ${verdict.failed}`)
  switch (verdict) {
    case 'valid':
      return VALID
    case 'factory_reverted':
      return invalid(
        `the ERC-6492 factory ${factory} reverts when called with the wrapper's calldata, so the payer ${payer} ` +
          `would not be deployed`,
      )
    case 'not_deployed':
      return invalid(
        `calling the ERC-6492 factory ${factory} with the wrapper's calldata does not deploy the payer ${payer}`,
      )
    case 'rejected':
      return invalid(`the payer ${payer}, once deployed by its factory, does not accept the inner signature (ERC-1271)`)
  }
}

/**
 * EIP-6492 as its universal validator reads it. A payer that already has code is asked ERC-1271 with the inner
 * signature: the wrapper's factory is not needed, so the allowlist does not matter. A payer without code may only be
 * deployed by an allowed factory (docs/ARCHITECTURE.md, "ERC-6492 payers": the settle calls it at the facilitator's
 * expense); then one deployless call deploys it and asks it, all inside the call.
 */
export const makeErc6492SignatureCheck = (options: Erc6492CheckOptions): Erc6492SignatureCheck => {
  const validation = options.validation ?? makeErc6492Validation(options.rpc)
  return (authorization, wrapper, digest) =>
    pipe(
      tryRpc('reading the payer code', () => hasCode(options.rpc, authorization.from)),
      TE.chain((deployed): TE.TaskEither<ChainUnavailable, SignatureCheck> => {
        if (deployed) {
          return pipe(
            options.erc1271(authorization.from, digest, wrapper.signature),
            TE.map((accepted) =>
              accepted
                ? VALID
                : invalid(
                    `the payer contract ${authorization.from} does not accept the inner signature of its ` +
                      `ERC-6492 wrapper (ERC-1271)`,
                  ),
            ),
          )
        }
        if (!isAllowedFactory(options.allowedFactories, wrapper.factory))
          return TE.right({ _tag: 'FactoryNotAllowed', factory: wrapper.factory })
        return pipe(
          validation(authorization.from, digest, wrapper),
          TE.map((verdict) => explainVerdict(verdict, authorization.from, wrapper.factory)),
        )
      }),
    )
}
