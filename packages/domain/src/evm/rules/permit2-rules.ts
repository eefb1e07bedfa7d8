import * as E from 'fp-ts/lib/Either.js'
import { constVoid, pipe } from 'fp-ts/lib/function.js'
import * as RA from 'fp-ts/lib/ReadonlyArray.js'
import type { VerifyFailure } from '../../model/failures.js'
import { effectiveMinAmount, type FacilitatorPolicy } from '../../model/payment.js'
import { type EvmAddress as Address } from '../model/evm-hex.js'
import { type Permit2Contracts } from '../model/evm-payment.js'
import type { Permit2PaymentRequest } from '../model/permit2-payment.js'
import { ensure } from './request-rules.js'

/**
 * What the pure Permit2 / `upto` rules see (docs/ARCHITECTURE.md §3, P1–P3, 4b', 5c', 6', E1): the request, the
 * policy (its validity margin), the time, the contracts of the network and the keys this replica settles `upto` with.
 */
export interface Permit2RuleContext {
  readonly request: Permit2PaymentRequest
  readonly policy: FacilitatorPolicy
  readonly now: bigint
  /** `settle`: an `upto` payment's `requirements.amount` is what to charge, not the maximum [verify]. */
  readonly phase?: 'verify' | 'settle'
  readonly contracts: Permit2Contracts
  /** The addresses an `upto` witness may name: this replica's keys on the network. */
  readonly facilitators: ReadonlyArray<Address>
}

export type Permit2Rule = (c: Permit2RuleContext) => E.Either<VerifyFailure, void>

const isUpto = ({ request }: Permit2RuleContext) =>
  request.payload.scheme === 'upto' || request.requirements.scheme === 'upto'

/** Rule P1: the permit's spender is the proxy of the scheme (exact or upto). */
export const spenderIsSchemeProxy: Permit2Rule = (c) => {
  // Rule 2a' refused an `upto` payment where no upto proxy is deployed before this rule runs.
  const expected = (isUpto(c) ? c.contracts.uptoProxy : undefined) ?? c.contracts.exactProxy
  const { spender } = c.request.payload.permit2Authorization
  return ensure(spender === expected, () => ({ _tag: 'Permit2SpenderMismatch', spender, expected }))
}

/** Rule 4b': the witness pays the required recipient (the proxy sends to `witness.to`). */
export const witnessPaysPayTo: Permit2Rule = ({ request }) => {
  const actual = request.payload.permit2Authorization.witness.to
  const expected = request.requirements.payTo
  return ensure(actual === expected, () => ({ _tag: 'Permit2RecipientMismatch', actual, expected }))
}

/** Rule P3: the permit moves the token the requirements ask for. */
export const permittedTokenIsAsset: Permit2Rule = ({ request }) => {
  const { token } = request.payload.permit2Authorization.permitted
  const expected = request.requirements.asset
  return ensure(token === expected, () => ({ _tag: 'Permit2TokenMismatch', token, expected }))
}

/**
 * Rule 5c': the permitted amount is exactly the required amount (for `upto` at verify, the maximum asked); an `upto`
 * settle charges `requirements.amount`, at most what was permitted, and (rule 5b) nothing below `MIN_AMOUNT` but 0,
 * which sends nothing (`waived`): a charge of 1 unit would cost gas the minimum exists to refuse.
 */
export const permittedAmountIsRequired: Permit2Rule = (c) => {
  const permitted = c.request.payload.permit2Authorization.permitted.amount
  const amount = c.request.requirements.amount
  if (isUpto(c) && c.phase === 'settle') {
    const minimum = effectiveMinAmount(c.policy)
    return pipe(
      ensure(amount <= permitted, () => ({ _tag: 'UptoAmountExceedsPermitted', amount, permitted })),
      E.chain(() =>
        ensure(amount === 0n || amount >= minimum, () => ({ _tag: 'AmountBelowMinimum', amount, minimum })),
      ),
    )
  }
  return ensure(permitted === amount, () => ({ _tag: 'Permit2AmountMismatch', permitted, expected: amount }))
}

/**
 * Rule 6': valid now (the proxy reverts `PaymentTooEarly` while `now < validAfter`) and still valid after the margin
 * of rule 6 (Permit2 reverts `SignatureExpired` once `now > deadline`).
 */
export const permitWithinTimeWindow: Permit2Rule = ({ request, policy, now }) => {
  const { deadline, witness } = request.payload.permit2Authorization
  const margin = policy.validityMarginSeconds
  return pipe(
    ensure(witness.validAfter <= now, () => ({ _tag: 'Permit2NotYetValid', validAfter: witness.validAfter, now })),
    E.chain(() => ensure(now + margin < deadline, () => ({ _tag: 'Permit2DeadlineExpired', deadline, now, margin }))),
  )
}

/** Rule P2: an `upto` witness names one of this replica's keys, the only sender its proxy accepts. */
export const uptoFacilitatorIsOurs: Permit2Rule = (c) => {
  const { facilitator } = c.request.payload.permit2Authorization.witness
  if (!isUpto(c)) return E.right(undefined)
  const ours = facilitator !== undefined && c.facilitators.includes(facilitator)
  return ensure(ours, () =>
    facilitator === undefined ? { _tag: 'UptoFacilitatorMismatch' } : { _tag: 'UptoFacilitatorMismatch', facilitator },
  )
}

/**
 * Rule E1 (its fields): a sponsored EIP-2612 permit (`eip2612GasSponsoring`) is the payer's, of the paid token, to
 * Permit2, for exactly the permitted amount (the proxy reverts `Permit2612AmountMismatch` otherwise), and still
 * valid after the margin. Its nonce and signature are read on chain (rule E1's other half).
 */
export const sponsoredPermitMatches: Permit2Rule = ({ request, policy, now, contracts }) => {
  const sponsored = request.payload.sponsoredPermit
  if (sponsored === undefined) return E.right(undefined)
  const { from, permitted } = request.payload.permit2Authorization
  const margin = policy.validityMarginSeconds
  const { deadline } = sponsored
  return pipe(
    ensure(sponsored.from === from, () => ({ _tag: 'SponsoredPermitFromMismatch', from: sponsored.from, payer: from })),
    E.chain(() =>
      ensure(sponsored.asset === permitted.token, () => ({
        _tag: 'SponsoredPermitAssetMismatch',
        asset: sponsored.asset,
        token: permitted.token,
      })),
    ),
    E.chain(() =>
      ensure(sponsored.spender === contracts.permit2, () => ({
        _tag: 'SponsoredPermitSpenderNotPermit2',
        spender: sponsored.spender,
        permit2: contracts.permit2,
      })),
    ),
    E.chain(() =>
      ensure(sponsored.amount === permitted.amount, () => ({
        _tag: 'SponsoredPermitAmountMismatch',
        amount: sponsored.amount,
        permitted: permitted.amount,
      })),
    ),
    E.chain(() =>
      ensure(now + margin < deadline, () => ({ _tag: 'SponsoredPermitDeadlineExpired', deadline, now, margin })),
    ),
  )
}

/** The pure Permit2 / `upto` rules, first failure wins, in 2.27's order (spender, recipient, time, amount, token). */
export const permit2Rules: Permit2Rule = (c) =>
  pipe(
    [
      spenderIsSchemeProxy,
      witnessPaysPayTo,
      uptoFacilitatorIsOurs,
      permitWithinTimeWindow,
      permittedAmountIsRequired,
      permittedTokenIsAsset,
      sponsoredPermitMatches,
    ],
    RA.traverse(E.Applicative)((rule) => rule(c)),
    E.map(constVoid),
  )
