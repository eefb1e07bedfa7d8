import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../../model/failures.js'
import type { Authorization } from '../model/evm-payment.js'
import type { SignatureCheck } from '../ports/signature-verifier.js'
import { availableBalance, type AllowanceInFlight } from '../../ports/payer-exposure.js'
import { paymentKindOf, permit2Conflict } from '../model/payment-kind.js'
import type { PayerState, PaymentTrial, TransferTrial } from '../ports/token-reader.js'
import { ensure } from './request-rules.js'

// Rules 7–10 of docs/ARCHITECTURE.md §3: verdicts on what the chain answered about the payment.

/**
 * Rule 7: the signature (low-s) recovers to `from`, or `from` is a contract that accepts it (ERC-1271), or a wallet
 * its allowed factory would deploy that accepts it (ERC-6492).
 */
export const signatureRecoversPayer = (
  check: SignatureCheck,
  authorization?: Authorization,
): E.Either<VerifyFailure, void> => {
  switch (check._tag) {
    case 'SignatureValid':
      return E.right(undefined)
    case 'SignatureInvalid':
      return E.left({
        _tag: authorization?.permit2 === undefined ? 'InvalidSignature' : 'Permit2InvalidSignature',
        detail: check.detail,
      })
    case 'FactoryNotAllowed':
      return E.left({ _tag: 'Erc6492FactoryNotAllowed', factory: check.factory })
  }
}

/** Rule 8: the nonce is unused on-chain (`authorizationState`). */
export const authorizationIsUnused = (state: PayerState): E.Either<VerifyFailure, void> =>
  ensure(!state.authorizationUsed, () => ({ _tag: 'AuthorizationUsed' }))

/** Rule 9: the balance, less what this replica already has in flight for the payer, covers the value. */
export const hasSufficientBalance = (
  state: PayerState,
  inFlight: bigint,
  authorization: Authorization,
): E.Either<VerifyFailure, void> =>
  ensure(availableBalance(state.balance, inFlight) >= authorization.value, () =>
    insufficientFunds(state, inFlight, authorization),
  )

/**
 * Rule 9' (a Permit2 payment): the payer's allowance to Permit2 covers the value too, less what is in flight for the
 * payer (counted whole, whichever method each payment in flight uses: never less than Permit2 will be asked for). A
 * sponsored EIP-2612 permit, submitted in the same transaction, grants it; the trial of that transaction judges it.
 * A sponsored permit *sets* the allowance: none goes beside another Permit2 payment of the payer's in flight here, and
 * none of those goes beside it (`permit2Conflict`).
 */
export const hasPermit2Allowance = (
  state: PayerState,
  inFlight: bigint,
  authorization: Authorization,
  permit2InFlight: AllowanceInFlight = { payments: 0, setters: 0 },
): E.Either<VerifyFailure, void> => {
  const { permit2 } = authorization
  const conflict = permit2Conflict(paymentKindOf(permit2), permit2InFlight)
  if (conflict !== undefined)
    return E.left({ _tag: 'Permit2AllowanceInFlight', conflict, payments: permit2InFlight.payments })
  if (permit2 === undefined || permit2.sponsoredPermit !== undefined) return E.right(undefined)
  const allowance = availableBalance(state.permit2Allowance ?? 0n, inFlight)
  return ensure(allowance >= authorization.value, () => ({
    _tag: 'Permit2AllowanceRequired',
    allowance,
    required: authorization.value,
  }))
}

/**
 * Rule E1 (on chain): a sponsored EIP-2612 permit runs at the token — its nonce the payer's next, its signature the
 * payer's (ERC-1271 for a payer with code). The proxy swallows a failed `permit` and pays on an existing allowance, so a
 * forged permit would hold the payer's permit nonce (the journal keeps one permit to one payment) and lock out the
 * genuine one: refused before any claim.
 */
export const sponsoredPermitRuns = (
  state: PaymentTrial,
  authorization: Authorization,
): E.Either<VerifyFailure, void> => {
  const permit = authorization.permit2?.sponsoredPermit
  if (permit === undefined) return E.right(undefined)
  const trial = state.sponsoredPermit ?? { _tag: 'WouldNotRun', tokenNonce: permit.nonce, reason: 'not tried' }
  return trial._tag === 'Runs'
    ? E.right(undefined)
    : E.left({
        _tag: 'SponsoredPermitInvalid',
        nonce: permit.nonce,
        tokenNonce: trial.tokenNonce,
        reason: trial.reason,
      })
}

/** Rule 9's refusal; settle answers it too when its reservation finds the balance taken meanwhile. */
export const insufficientFunds = (
  state: PayerState,
  inFlight: bigint,
  authorization: Authorization,
): VerifyFailure => ({
  _tag: 'InsufficientFunds',
  available: availableBalance(state.balance, inFlight),
  required: authorization.value,
})

/**
 * Rule 10 (docs/ARCHITECTURE.md §3): the settle's own transaction, tried at the latest block, would succeed — so no
 * gas is spent on a payment the token will refuse (a blacklisted payer or payee, a paused token, a wallet that refuses
 * the signature, ...). The token's flags name the cause; anything else carries the revert message.
 */
export const transferWouldSucceed = (
  trial: TransferTrial,
  authorization: Authorization,
): E.Either<VerifyFailure, void> => {
  if (trial._tag !== 'WouldRevert') return E.right(undefined)
  if (trial.paused) return E.left({ _tag: 'TokenPaused' })
  if (trial.payerBlacklisted) return E.left({ _tag: 'PayerBlacklisted', payer: authorization.from })
  if (trial.payeeBlacklisted) return E.left({ _tag: 'PayeeBlacklisted', payee: authorization.to })
  const reason = trial.reason
  return E.left(reason === undefined ? { _tag: 'TransferWouldRevert' } : { _tag: 'TransferWouldRevert', reason })
}
