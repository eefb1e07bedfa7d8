import * as t from 'io-ts'

/**
 * How the SVM's values are spelled where this service wrote them itself (journal rows): base58 and base64 are
 * case-sensitive, so they are read back exactly as stored. Each pattern is the one the journal's checks hold it to.
 */
const spelled = (name: string, pattern: RegExp): t.Type<string, string, unknown> =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && pattern.test(u),
    (u, c) => (typeof u === 'string' && pattern.test(u) ? t.success(u) : t.failure(u, c)),
    (s) => s,
  )

export const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
export const BASE58_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/
export const BASE64_BYTES = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
export const MESSAGE_DIGEST = /^[0-9a-f]{64}$/

/** A public key (an account, a mint, a blockhash): 32 bytes in base58. */
export const Base58Address = spelled('a base58 32-byte address', BASE58_ADDRESS)
/** A transaction's signature, its id: 64 bytes in base58. */
export const Base58Signature = spelled('a base58 64-byte signature', BASE58_SIGNATURE)
/** A transaction's bytes (a payer's partially signed one, ours fully signed), in base64. */
export const Base64Bytes = spelled('base64 bytes', BASE64_BYTES)
/** A payment's identity (its message's SHA-256), in lower-case hex. */
export const MessageDigest = spelled('a message digest (64 lower-case hex)', MESSAGE_DIGEST)
