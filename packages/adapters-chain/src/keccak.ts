import createKeccakHash from 'keccak'

/**
 * Keccak-256 of raw bytes, native (the `keccak` package's prebuilt binding; about 3× the pure-JS hash here). The hot
 * paths (struct hash, digest, address) stay in bytes, no hex round trips.
 */
export const keccak256Bytes = (data: Uint8Array): Uint8Array =>
  createKeccakHash('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest()
