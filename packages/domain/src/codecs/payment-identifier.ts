import * as E from 'fp-ts/lib/Either.js'
import type { MalformedRequest } from './decode-failure.js'

/** The x402 v2 extension's key (coinbase/x402 `specs/extensions/payment_identifier.md`). */
export const PAYMENT_IDENTIFIER = 'payment-identifier'

/** 16 to 128 characters of `[A-Za-z0-9_-]`, as @x402/extensions 2.27's `isValidPaymentId`. */
const PAYMENT_ID = /^[A-Za-z0-9_-]{16,128}$/

const FIELD = `paymentPayload.extensions.${PAYMENT_IDENTIFIER}`

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const malformed = (
  reasonCode: 'invalid_payment_identifier' | 'payment_identifier_required',
  field: string,
  what: string,
): MalformedRequest => ({ _tag: 'MalformedRequest', reasonCode, field, message: `${field}: ${what}` })

const describeBadId = (id: unknown): string =>
  typeof id !== 'string'
    ? 'expected a string'
    : id.length < 16 || id.length > 128
      ? `expected 16 to 128 characters, got ${id.length}`
      : 'expected only the characters A-Z, a-z, 0-9, _ and -'

/**
 * The payment's id from a payload's `extensions` (docs/ARCHITECTURE.md §5.2): undefined when the extension is absent
 * (or `extensions` is not an object, which other payloads ignore as they always did); a malformed extension or id, or
 * `info.required: true` without an id, is a 400 naming the field.
 */
export const readPaymentIdentifier = (extensions: unknown): E.Either<MalformedRequest, string | undefined> => {
  if (!isRecord(extensions) || !(PAYMENT_IDENTIFIER in extensions)) return E.right(undefined)
  const extension = extensions[PAYMENT_IDENTIFIER]
  if (!isRecord(extension) || !isRecord(extension.info)) {
    return E.left(malformed('invalid_payment_identifier', `${FIELD}.info`, 'expected an object'))
  }
  const { id, required } = extension.info
  if (required !== undefined && typeof required !== 'boolean') {
    return E.left(malformed('invalid_payment_identifier', `${FIELD}.info.required`, 'expected a boolean'))
  }
  if (id === undefined) {
    return required === true
      ? E.left(malformed('payment_identifier_required', `${FIELD}.info.id`, 'required (info.required is true)'))
      : E.right(undefined)
  }
  if (typeof id === 'string' && PAYMENT_ID.test(id)) return E.right(id)
  return E.left(malformed('invalid_payment_identifier', `${FIELD}.info.id`, describeBadId(id)))
}
