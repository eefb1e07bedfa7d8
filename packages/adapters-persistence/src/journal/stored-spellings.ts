import * as t from 'io-ts'
import {
  Base58Address,
  Base58Signature,
  Base64Bytes,
  CanonicalAddress,
  CanonicalBytes32,
  HexBytes,
  MessageDigest,
} from '@x402-facilitator/domain'

// Each chain family's spelling (the EVM's hex, the SVM's base58 and base64): the journal's checks (migration 0016) hold
// each row to its own family's, by its chain id.
const anyOf = <A, O>(name: string, ...codecs: ReadonlyArray<t.Type<A, O, unknown>>) =>
  new t.Type<A, O, unknown>(
    name,
    (u): u is A => codecs.some((codec) => codec.is(u)),
    (u, c) => {
      for (const codec of codecs) {
        const decoded = codec.decode(u)
        if (decoded._tag === 'Right') return decoded
      }
      return t.failure(u, c)
    },
    (a) => codecs[0]!.encode(a),
  )
export const Address = anyOf(
  'an address (0x hex or base58)',
  CanonicalAddress as t.Type<string, string, unknown>,
  Base58Address,
)
export const TxHash = anyOf(
  'a transaction hash (0x hex) or signature (base58)',
  CanonicalBytes32 as t.Type<string, string, unknown>,
  Base58Signature,
)
export const BlockHash = anyOf(
  'a block hash (0x hex or base58)',
  CanonicalBytes32 as t.Type<string, string, unknown>,
  Base58Address,
)
export const Nonce = anyOf(
  'a nonce (0x hex) or message digest',
  CanonicalBytes32 as t.Type<string, string, unknown>,
  MessageDigest,
)
export const Bytes = anyOf('bytes (0x hex or base64)', HexBytes as t.Type<string, string, unknown>, Base64Bytes)
