import { createHash } from 'node:crypto'

/**
 * A Solana payment's identity, as the journal keys it: the SHA-256 (hex) of its transaction's message — the bytes after
 * its signatures (a compact-u16 count, then 64 bytes each). Undefined for bytes too short to hold a message.
 */
export const svmMessageDigest = (base64: string): string | undefined => {
  const bytes = Buffer.from(base64, 'base64')
  let count = 0
  let at = 0
  for (let shift = 0; at < bytes.length && at < 3; shift += 7) {
    const byte = bytes[at++]!
    count |= (byte & 0x7f) << shift
    if ((byte & 0x80) === 0) break
  }
  const start = at + count * 64
  return start >= bytes.length ? undefined : createHash('sha256').update(bytes.subarray(start)).digest('hex')
}
