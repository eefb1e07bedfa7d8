import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'

/** `attempts.0.raw: expected 0x-prefixed bytes, got "0x1"`: the column (and element) that failed. */
const describeFailure = (errors: t.Errors): string => {
  const first = errors[0]
  if (first === undefined) return 'does not decode'
  const column = first.context
    .map((entry) => entry.key)
    .filter((key) => key !== '')
    .join('.')
  const expected = first.context[first.context.length - 1]?.type.name ?? 'a valid value'
  const got = typeof first.value === 'string' ? JSON.stringify(first.value) : String(first.value)
  return `${column}: expected ${expected}, got ${got}`
}

/** A decoder of rows from Postgres: a bad value throws an error naming its column. */
export const decoder =
  <A>(codec: t.Decoder<unknown, A>, what: string) =>
  (row: unknown): A => {
    const decoded = codec.decode(row)
    if (E.isLeft(decoded)) throw new Error(`${what} does not decode: ${describeFailure(decoded.left)}`)
    return decoded.right
  }
