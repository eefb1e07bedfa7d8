import type * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { Address } from '../model/payment.js'

/** A request refused before it became a payment: who pays, and why. */
export interface UnservedRequest {
  readonly payer: Address
  readonly failure: VerifyFailure
}

/** Verify judges a payment as signed (an `upto`'s maximum); settle what the resource server asks of it. */
export type PaymentPhase = 'verify' | 'settle'

/** A request as its chain family's payment `P`; `sender`: the one signing key that may send it, when only one may. */
export interface ReadRequest<P> {
  readonly payment: P
  readonly sender?: Address
}

/** How a route's chain family reads a decoded request `R` as its payment `P`, by the rules that need no chain. */
export type RequestReader<R, P> = (
  request: R,
  phase: PaymentPhase,
) => Promise<E.Either<UnservedRequest, ReadRequest<P>>>
