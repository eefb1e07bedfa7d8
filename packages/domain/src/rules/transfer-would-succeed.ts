import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { Authorization } from '../model/payment.js'
import type { TransferTrial } from '../ports/token-reader.js'

/**
 * Rule 10 (docs/ARCHITECTURE.md §3): the settle's own transaction, tried at the latest block, would succeed — so no gas
 * is spent on a payment the token will refuse (a blacklisted payer or payee, a paused token, a wallet that refuses the
 * signature, ...). The token's flags name the cause; anything else carries the revert message.
 */
export const transferWouldSucceed = (trial: TransferTrial, authorization: Authorization): E.Either<VerifyFailure, void> => {
  if (trial._tag !== 'WouldRevert') return E.right(undefined)
  if (trial.paused) return E.left({ _tag: 'TokenPaused' })
  if (trial.payerBlacklisted) return E.left({ _tag: 'PayerBlacklisted', payer: authorization.from })
  if (trial.payeeBlacklisted) return E.left({ _tag: 'PayeeBlacklisted', payee: authorization.to })
  return E.left(trial.reason === undefined ? { _tag: 'TransferWouldRevert' } : { _tag: 'TransferWouldRevert', reason: trial.reason })
}
