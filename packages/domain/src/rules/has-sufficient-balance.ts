import type * as E from 'fp-ts/lib/Either.js'
import { availableBalance } from '../model/available-balance.js'
import type { VerifyFailure } from '../model/failures.js'
import type { Authorization } from '../model/payment.js'
import type { PayerState } from '../ports/token-reader.js'
import { ensure } from './rule.js'

/** Rule 9: the balance, less what this replica already has in flight for the payer, covers the value. */
export const hasSufficientBalance = (
  state: PayerState,
  inFlight: bigint,
  authorization: Authorization,
): E.Either<VerifyFailure, void> =>
  ensure(availableBalance(state.balance, inFlight) >= authorization.value, () => insufficientFunds(state, inFlight, authorization))

/** Rule 9's refusal; settle answers it too when its reservation finds the balance taken meanwhile. */
export const insufficientFunds = (state: PayerState, inFlight: bigint, authorization: Authorization): VerifyFailure => ({
  _tag: 'InsufficientFunds',
  available: availableBalance(state.balance, inFlight),
  required: authorization.value,
})
