import * as t from 'io-ts'

export const UINT256_MAX = (1n << 256n) - 1n

const DECIMAL = /^(0|[1-9][0-9]*)$/
const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/

const isNonNegativeSafeInteger = (u: unknown): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= 0

/** Parses the exact string forms of §2 (decimal without sign, point, exponent or leading zero; or `0x` hex). */
const parseUintString = (s: string): bigint | undefined => {
  if (!DECIMAL.test(s) && !HEX_QUANTITY.test(s)) return undefined
  const n = BigInt(s)
  return n <= UINT256_MAX ? n : undefined
}

const isBigint = (u: unknown): u is bigint => typeof u === 'bigint'

/** `value`, `amount`: a decimal (or `0x` hex) string below 2^256. JSON numbers are refused: amounts are strings. */
export const Uint256String = new t.Type<bigint, string, unknown>(
  'a non-negative decimal integer string',
  isBigint,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c)
    const n = parseUintString(u)
    return n === undefined ? t.failure(u, c) : t.success(n)
  },
  (n) => n.toString(),
)

/** `validAfter`, `validBefore`: a JSON safe integer ≥ 0, a decimal string or `0x` hex, below 2^256. */
export const Uint256Integer = new t.Type<bigint, string, unknown>(
  'a non-negative integer (JSON safe integer, decimal string or 0x hex)',
  isBigint,
  (u, c) => {
    if (isNonNegativeSafeInteger(u)) return t.success(BigInt(u))
    if (typeof u !== 'string') return t.failure(u, c)
    const n = parseUintString(u)
    return n === undefined ? t.failure(u, c) : t.success(n)
  },
  (n) => n.toString(),
)

/** `maxTimeoutSeconds`: a JSON safe integer > 0. */
export const PositiveSafeInteger = new t.Type<number, number, unknown>(
  'a positive safe integer',
  (u): u is number => isNonNegativeSafeInteger(u) && u > 0,
  (u, c) => (isNonNegativeSafeInteger(u) && u > 0 ? t.success(u) : t.failure(u, c)),
  (n) => n,
)

const VERSION = /^[0-9]+(\.[0-9]+){0,2}$/

/** `"2.0"`, `"2"` or a JSON integer; canonical: the major version. Whether it is 2 is rule 1's business. */
export const X402Version = new t.Type<number, string, unknown>(
  'a protocol version ("2.0", "2" or an integer)',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    if (typeof u === 'number') return Number.isSafeInteger(u) && u >= 0 ? t.success(u) : t.failure(u, c)
    if (typeof u !== 'string' || !VERSION.test(u)) return t.failure(u, c)
    const major = Number(u.split('.')[0])
    return Number.isSafeInteger(major) ? t.success(major) : t.failure(u, c)
  },
  (n) => `${n}.0`,
)

export const NonEmptyString = new t.Type<string, string, unknown>(
  'a non-empty string',
  (u): u is string => typeof u === 'string' && u.length > 0,
  (u, c) => (typeof u === 'string' && u.length > 0 ? t.success(u) : t.failure(u, c)),
  (s) => s,
)
