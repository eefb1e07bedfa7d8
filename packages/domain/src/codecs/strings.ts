import * as t from 'io-ts'

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
