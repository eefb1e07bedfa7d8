import {
  CANONICAL_PERMIT2_CONTRACTS,
  parseErc6492Signature,
  type Address,
  type Authorization,
  type Permit2Authorization,
  type ChainUnavailable,
  type Eip712Domain,
  type Erc6492Parse,
  type Hex,
  type SignatureCheck,
  type SignatureVerifier,
} from '@x402-facilitator/domain'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import secp256k1 from 'secp256k1'
import type { Erc1271Check } from './erc1271-check.js'
import type { Erc6492SignatureCheck } from './erc6492-signature-check.js'
import { bytesToHex, hexToBytesStrict, keccak256Bytes, lowerCase } from './hex-bytes.js'
import { verifyPermit2Signature, verifyPermit2SignatureByKey } from './permit2-digest.js'
import { makeTransferAuthorizationDigest, type AuthorizationDigest } from './transfer-authorization-digest.js'

const invalid = (detail: string): SignatureCheck => ({ _tag: 'SignatureInvalid', detail })
const VALID: SignatureCheck = { _tag: 'SignatureValid' }
const VALID_BY_KEY: SignatureCheck = { _tag: 'SignatureValid', byKey: true }

/** The signer's address from a 32-byte digest, via libsecp256k1 (measured ≈ 20× faster than viem's JS recovery). */
export const recoverAddress = (digest: Uint8Array, compact: Uint8Array, recoveryId: 0 | 1): string | undefined => {
  try {
    const publicKey = secp256k1.ecdsaRecover(compact, recoveryId, digest, false)
    return bytesToHex(keccak256Bytes(publicKey.subarray(1)).subarray(12))
  } catch {
    return undefined
  }
}

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

/** secp256k1 group order n, and n / 2: the largest s a canonical (EIP-2 low-s) signature may carry. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
export const SECP256K1_HALF_N = SECP256K1_N >> 1n

export interface SignatureParts {
  /** r ‖ s, 64 bytes, as libsecp256k1 takes them. */
  readonly compact: Uint8Array
  readonly r: bigint
  readonly s: bigint
  /** 0 or 1. */
  readonly recoveryId: 0 | 1
}

/**
 * Splits a 65-byte `r ‖ s ‖ v` signature (v ∈ {0, 1, 27, 28}), rejecting what a token would reject: high s, r or
 * s out of range.
 */
export const parseSignature = (signature: string): SignatureParts | string => {
  if (signature.length !== 132) return `signature must be 65 bytes, got ${Math.max(0, (signature.length - 2) / 2)}`
  const bytes = hexToBytesStrict(signature)
  if (!bytes) return 'signature is not hex'
  const v = bytes[64]!
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) return `signature v must be 27 or 28 (or 0/1), got ${v}`
  const compact = bytes.subarray(0, 64)
  // The signature is known hex here (hexToBytesStrict accepted it): its digits are r and s as they stand.
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  if (r === 0n || r >= SECP256K1_N) return 'signature r out of range'
  if (s === 0n) return 'signature s is zero'
  if (s > SECP256K1_HALF_N) return 'signature s is high (malleable twin, EIP-2)'
  return { compact, r, s, recoveryId: (v % 27) as 0 | 1 }
}
