import { keccak_256 } from '@noble/hashes/sha3.js'

/** Keccak-256 of raw bytes: the hot paths (struct hash, digest, address) stay in bytes, no hex round trips. */
export const keccak256Bytes = (data: Uint8Array): Uint8Array => keccak_256(data)
