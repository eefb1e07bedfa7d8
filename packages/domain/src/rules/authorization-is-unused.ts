import type * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { PayerState } from '../ports/token-reader.js'
import { ensure } from './rule.js'

/** Rule 8: the nonce is unused on-chain (`authorizationState`). */
export const authorizationIsUnused = (state: PayerState): E.Either<VerifyFailure, void> =>
  ensure(!state.authorizationUsed, () => ({ _tag: 'AuthorizationUsed' }))
