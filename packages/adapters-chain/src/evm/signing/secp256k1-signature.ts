import secp256k1 from 'secp256k1'
import { bytesToHex, hexToBytesStrict, keccak256Bytes } from '../hex-bytes.js'

// secp256k1 signatures as rule 7 takes them: split and range-checked (low s), and recovered with the native library.

/** The signer's address from a 32-byte digest, via libsecp256k1 (measured ≈ 20× faster than viem's JS recovery). */
export const recoverAddress = (digest: Uint8Array, compact: Uint8Array, recoveryId: 0 | 1): string | undefined => {
  try {
    const publicKey = secp256k1.ecdsaRecover(compact, recoveryId, digest, false)
    return bytesToHex(keccak256Bytes(publicKey.subarray(1)).subarray(12))
  } catch {
    return undefined
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
