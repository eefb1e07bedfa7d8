import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentEnds } from '../ports/payment-ends.js'

/**
 * Nobody but us can land an SVM payment: its message names our fee payer, whose signature it needs. There is no copy
 * to be mined first and no cancellation; a payer who moves its funds away makes our transaction fail, and that is ours.
 */
export const NOBODY_ELSE: PaymentEnds = {
  usedBy: () => TE.right(O.none),
  endedBy: () => TE.right(O.none),
}
