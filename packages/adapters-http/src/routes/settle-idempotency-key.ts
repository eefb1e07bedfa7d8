import * as E from 'fp-ts/lib/Either.js'

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** An Idempotency-Key header: none (''), or 1 to 255 visible ASCII characters. */
export const isIdempotencyKey = (header: string): boolean => header === '' || IDEMPOTENCY_KEY.test(header)

/**
 * A settle's Idempotency-Key (docs/ARCHITECTURE.md §5.2): the header, or the payload's `payment-identifier` id, which
 * is that caller's key under the same name; both only when they are equal. '' without either.
 */
export const settleIdempotencyKey = (
  header: string,
  paymentId: string | undefined,
): E.Either<{ readonly _tag: 'IdempotencyKeyMismatch' }, string> =>
  paymentId === undefined
    ? E.right(header)
    : header !== '' && header !== paymentId
      ? E.left({ _tag: 'IdempotencyKeyMismatch' })
      : E.right(paymentId)
