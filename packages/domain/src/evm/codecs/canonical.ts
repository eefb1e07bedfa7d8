import * as t from 'io-ts'
import type { EvmAddress as Address, Bytes32, Hex } from '../model/evm-hex.js'
import type { SettlementState as State } from '../../model/failures.js'

/** A string that matches `pattern` is `Hex` by type as well: every pattern given to it starts with `^0x`. */
export const matchesHex =
  (pattern: RegExp) =>
  (u: unknown): u is Hex =>
    typeof u === 'string' && pattern.test(u)

/**
 * Codecs for values this service wrote itself and reads back (journal rows, node answers): they accept the canonical
 * form only, so a bad stored value is a decoding error with a name rather than a wrong answer. Request bodies go
 * through the liberal codecs of `hex.ts` and `integers.ts` instead.
 */
const canonicalHex = (name: string, pattern: RegExp): t.Type<Hex, string, unknown> => {
  const isCanonical = matchesHex(pattern)
  return new t.Type<Hex, string, unknown>(
    name,
    isCanonical,
    (u, c) => {
      const lowered = typeof u === 'string' ? u.toLowerCase() : u
      return isCanonical(lowered) ? t.success(lowered) : t.failure(u, c)
    },
    (h) => h,
  )
}

/** `0x` + 40 hex, any case; canonical: lower case. */
export const CanonicalAddress: t.Type<Address, string, unknown> = canonicalHex(
  'a 0x-prefixed 20-byte address',
  /^0x[0-9a-f]{40}$/,
)
/** `0x` + 64 hex (a hash, an EIP-3009 nonce); canonical: lower case. */
export const CanonicalBytes32: t.Type<Bytes32, string, unknown> = canonicalHex(
  '0x-prefixed 32 bytes',
  /^0x[0-9a-f]{64}$/,
)
/** `0x` + whole bytes (raw transactions, signatures); canonical: lower case. */
export const HexBytes = canonicalHex('0x-prefixed bytes', /^0x(?:[0-9a-f]{2})*$/)

/** A non-negative integer as Postgres and JSON-RPC hand them over: a decimal string, a `0x` quantity or a bigint. */
export const UintFromString = new t.Type<bigint, string, unknown>(
  'a non-negative integer string',
  (u): u is bigint => typeof u === 'bigint' && u >= 0n,
  (u, c) => {
    if (typeof u === 'bigint') return u >= 0n ? t.success(u) : t.failure(u, c)
    return typeof u === 'string' && /^(?:[0-9]+|0x[0-9a-fA-F]+)$/.test(u) ? t.success(BigInt(u)) : t.failure(u, c)
  },
  (n) => n.toString(),
)

/** The journal's row states (docs/ARCHITECTURE.md §5). */
export const SettlementStateCodec: t.Type<State, string, unknown> = t.keyof({
  claimed: null,
  submitted: null,
  confirmed: null,
  final: null,
  reverted: null,
  released: null,
  waived: null,
  cancelled: null,
  unsettleable: null,
})
