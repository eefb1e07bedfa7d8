import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { Authorization } from '../model/payment.js'
import type { PayerState } from '../ports/token-reader.js'
import type { SignatureCheck } from '../ports/signature-verifier.js'
import { availableBalance } from '../model/available-balance.js'
import { ensure } from './rule.js'

/** Rule 7: the signature (low-s) recovers to `from`. */
export const signatureRecoversPayer = (check: SignatureCheck): E.Either<VerifyFailure, void> =>
  check._tag === 'SignatureValid' ? E.right(undefined) : E.left({ _tag: 'InvalidSignature', detail: check.detail })

/** Rule 8: the nonce is unused on-chain (`authorizationState`). */
export const authorizationIsUnused = (state: PayerState): E.Either<VerifyFailure, void> =>
  ensure(!state.authorizationUsed, () => ({ _tag: 'AuthorizationUsed' }))

/** Rule 9: the balance, less what this replica already has in flight for the payer, covers the value. */
export const hasSufficientBalance = (
  state: PayerState,
  inFlight: bigint,
  authorization: Authorization,
): E.Either<VerifyFailure, void> => {
  const available = availableBalance(state.balance, inFlight)
  return ensure(available >= authorization.value, () => ({
    _tag: 'InsufficientFunds',
    available,
    required: authorization.value,
  }))
}
