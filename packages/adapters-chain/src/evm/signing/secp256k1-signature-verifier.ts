import {
  CANONICAL_PERMIT2_CONTRACTS,
  type EvmAddress as Address,
  type Authorization,
  type Permit2Authorization,
  type ChainUnavailable,
  type Eip712Domain,
  type Hex,
  type SignatureCheck,
  type SignatureVerifier,
} from '@x402-facilitator/domain'
import { parseErc6492Signature, type Erc6492Parse } from '../wallets/erc6492-signature.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Erc1271Check } from '../wallets/erc1271-check.js'
import type { Erc6492SignatureCheck } from '../wallets/erc6492-signature-check.js'
import { lowerCase } from '../hex-bytes.js'
import { verifyPermit2Signature, verifyPermit2SignatureByKey } from '../permit2/permit2-digest.js'
import { parseSignature, recoverAddress } from './secp256k1-signature.js'

export {
  parseSignature,
  recoverAddress,
  SECP256K1_HALF_N,
  SECP256K1_N,
  type SignatureParts,
} from './secp256k1-signature.js'
import { makeTransferAuthorizationDigest, type AuthorizationDigest } from './transfer-authorization-digest.js'

const invalid = (detail: string): SignatureCheck => ({ _tag: 'SignatureInvalid', detail })
const VALID: SignatureCheck = { _tag: 'SignatureValid' }
const VALID_BY_KEY: SignatureCheck = { _tag: 'SignatureValid', byKey: true }

/**
 * EIP-712 `TransferWithAuthorization` recovery with the native secp256k1. The token's domain comes from the
 * `TokenReader` (read once); the digest maker over it is built on the first call and kept. A signature that does not
 * recover to the payer is put to the payer itself when `erc1271` is given: a smart wallet signs through its contract.
 * A signature that ends with the ERC-6492 magic suffix goes to `erc6492` (a wallet that may not be deployed yet).
 */
export const makeSecp256k1SignatureVerifier = (
  domain: TE.TaskEither<ChainUnavailable, Eip712Domain>,
  erc1271?: Erc1271Check,
  erc6492?: Erc6492SignatureCheck,
  { permit2 = CANONICAL_PERMIT2_CONTRACTS.permit2 }: { readonly permit2?: Address } = {},
): SignatureVerifier => {
  let digestOf: AuthorizationDigest | undefined
  const digestMaker: TE.TaskEither<ChainUnavailable, AuthorizationDigest> = () =>
    digestOf
      ? Promise.resolve({ _tag: 'Right', right: digestOf })
      : pipe(
          domain,
          TE.map((d) => (digestOf ??= makeTransferAuthorizationDigest(d))),
        )()

  /** The payer's key: `VALID`, or why not (the digest too, for the contract to judge). */
  const byKey = (
    authorization: Authorization,
    signature: Hex,
    digestOfAuthorization: AuthorizationDigest,
  ): { check: SignatureCheck; digest?: Uint8Array } => {
    const digest = digestOfAuthorization(authorization)
    if (typeof digest === 'string') return { check: invalid(digest) }
    const parts = parseSignature(signature)
    if (typeof parts === 'string') return { check: invalid(parts), digest }
    const signer = recoverAddress(digest, parts.compact, parts.recoveryId)
    if (signer === undefined) return { check: invalid('signature does not recover to any key'), digest }
    return signer === authorization.from.toLowerCase()
      ? { check: VALID_BY_KEY }
      : { check: invalid(`signature recovers to ${signer}, not to the payer ${authorization.from}`), digest }
  }

  const byWrapper = (
    authorization: Authorization,
    wrapped: Exclude<Erc6492Parse, { _tag: 'NotWrapped' }>,
    digestOfAuthorization: AuthorizationDigest,
  ) => {
    if (wrapped._tag === 'MalformedWrapper') return TE.right(invalid(wrapped.detail))
    if (erc6492 === undefined) return TE.right(invalid('ERC-6492 wrapped signatures are not accepted here'))
    const digest = digestOfAuthorization(authorization)
    return typeof digest === 'string' ? TE.right(invalid(digest)) : erc6492(authorization, wrapped, digest)
  }

  /** Rule P7 (permit2-digest.ts) over Permit2's domain on the token's chain; the token is the permitted one. */
  const permit2Check = (authorization: Authorization, signature: Hex) =>
    pipe(
      domain,
      TE.chain(({ chainId, verifyingContract }) => {
        if (parseErc6492Signature(signature)._tag !== 'NotWrapped')
          return TE.right(invalid('ERC-6492 wrapped signatures are not accepted for Permit2 payments'))
        const signed = permit2AuthorizationOf(authorization, verifyingContract)
        const { scheme } = authorization.permit2!
        const at = { chainId, permit2: lowerCase(permit2) }
        return erc1271 === undefined
          ? TE.right(verifyPermit2SignatureByKey(scheme, signed, signature, at))
          : verifyPermit2Signature(scheme, signed, signature, at, erc1271)
      }),
    )

  return {
    checkAuthorization: (authorization, signature) =>
      authorization.permit2 !== undefined
        ? permit2Check(authorization, signature)
        : pipe(
            digestMaker,
            TE.chain((digestOfAuthorization) => {
              const wrapped = parseErc6492Signature(signature)
              if (wrapped._tag !== 'NotWrapped') return byWrapper(authorization, wrapped, digestOfAuthorization)
              const { check, digest } = byKey(authorization, signature, digestOfAuthorization)
              if (check._tag === 'SignatureValid' || erc1271 === undefined || digest === undefined)
                return TE.right(check)
              return pipe(
                erc1271(authorization.from, digest, signature),
                TE.map((accepted) => (accepted ? VALID : check)),
              )
            }),
          ),
  }
}

/** What the payer signed for Permit2, rebuilt from the authorization read onto EIP-3009's fields. */
const permit2AuthorizationOf = (a: Authorization, token: Address): Permit2Authorization => {
  const { permitted, spender, facilitator } = a.permit2!
  return {
    from: a.from,
    permitted: { token, amount: permitted },
    spender,
    nonce: a.nonce,
    deadline: a.validBefore,
    witness: { to: a.to, validAfter: a.validAfter, ...(facilitator === undefined ? {} : { facilitator }) },
  }
}
