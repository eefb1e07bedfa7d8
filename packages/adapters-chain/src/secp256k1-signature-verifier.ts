import type { ChainUnavailable, Eip712Domain, SignatureCheck, SignatureVerifier } from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import secp256k1 from 'secp256k1'
import { bytesToHex } from './hex-bytes.js'
import { keccak256Bytes } from './keccak.js'
import { parseSignature } from './signature-parts.js'
import { makeTransferAuthorizationDigest, type AuthorizationDigest } from './transfer-authorization-digest.js'

const invalid = (detail: string): SignatureCheck => ({ _tag: 'SignatureInvalid', detail })
const VALID: SignatureCheck = { _tag: 'SignatureValid' }

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
 * `TokenReader` (read once); the digest maker over it is built on the first call and kept.
 */
export const makeSecp256k1SignatureVerifier = (domain: TE.TaskEither<ChainUnavailable, Eip712Domain>): SignatureVerifier => {
  let digestOf: AuthorizationDigest | undefined
  const digestMaker: TE.TaskEither<ChainUnavailable, AuthorizationDigest> = () =>
    digestOf
      ? Promise.resolve({ _tag: 'Right', right: digestOf })
      : pipe(
          domain,
          TE.map((d) => (digestOf ??= makeTransferAuthorizationDigest(d))),
        )()
  return {
    checkAuthorization: (authorization, signature) =>
      pipe(
        digestMaker,
        TE.map((digestOfAuthorization) => {
          const parts = parseSignature(signature)
          if (typeof parts === 'string') return invalid(parts)
          const digest = digestOfAuthorization(authorization)
          if (typeof digest === 'string') return invalid(digest)
          const signer = recoverAddress(digest, parts.compact, parts.recoveryId)
          if (signer === undefined) return invalid('signature does not recover to any key')
          return signer === authorization.from.toLowerCase()
            ? VALID
            : invalid(`signature recovers to ${signer}, not to the payer ${authorization.from}`)
        }),
      ),
  }
}
