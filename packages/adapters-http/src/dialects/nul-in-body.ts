import * as E from 'fp-ts/lib/Either.js'
import type { MalformedRequest } from '@x402-facilitator/domain'

const NUL = '\u0000'

/** Where a value sits: its key and its parent's place (a linked path, so a deep body costs linear time). */
interface Place {
  readonly key: string
  readonly parent: Place | undefined
}

/** The keys from the body down to a place. */
const pathOf = (place: Place | undefined): ReadonlyArray<string> => {
  const keys: string[] = []
  for (let at = place; at !== undefined; at = at.parent) keys.push(at.key)
  return keys.reverse()
}

/**
 * The place of the first string (a value or a key) holding U+0000; iterative, so a deeply nested body cannot overflow
 * the stack.
 */
const firstNul = (body: unknown): ReadonlyArray<string> | undefined => {
  const pending: Array<{ value: unknown; place: Place | undefined }> = [{ value: body, place: undefined }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, place } = next
    if (typeof value === 'string' && value.includes(NUL)) return pathOf(place)
    if (typeof value !== 'object' || value === null) continue
    for (const [key, inner] of Object.entries(value).reverse()) {
      if (key.includes(NUL)) return pathOf({ key, parent: place })
      pending.push({ value: inner, place: { key, parent: place } })
    }
  }
  return undefined
}

/**
 * Rule 0 (docs/ARCHITECTURE.md §3), last: no string of the body holds a NUL character. Postgres refuses one in
 * text and jsonb, so such requirements could never be claimed and every retry would be a 503.
 */
export const refuseNul = (body: unknown): E.Either<MalformedRequest, void> => {
  const path = firstNul(body)
  if (path === undefined) return E.right(undefined)
  const field = path.map((key) => key.replaceAll(NUL, '\\u0000')).join('.') || 'body'
  return E.left({
    _tag: 'MalformedRequest',
    reasonCode: path[0] === 'paymentRequirements' ? 'invalid_payment_requirements' : 'invalid_payload',
    field,
    message: `${field}: must not contain the NUL character (\\u0000)`,
  })
}
