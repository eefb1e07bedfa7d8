import * as E from 'fp-ts/lib/Either.js'
import { constVoid, pipe } from 'fp-ts/lib/function.js'
import * as RA from 'fp-ts/lib/ReadonlyArray.js'
import type { VerifyFailure } from '../../model/failures.js'
import { effectiveMinAmount, type FacilitatorPolicy } from '../../model/payment.js'
import { ZERO_ADDRESS } from '../model/evm-hex.js'
import { type PaymentRequest, type TransferMethod } from '../model/evm-payment.js'

/** The time rule 6 compares with `validAfter` and `validBefore`: whole seconds since the epoch. */
export const unixSeconds = (date: Date): bigint => BigInt(Math.floor(date.getTime() / 1000))

/** What the pure rules (1–6) see: the request, the policy and the time. */
export interface RuleContext {
  readonly request: PaymentRequest
  readonly policy: FacilitatorPolicy
  readonly now: bigint
}

export type Rule = (c: RuleContext) => E.Either<VerifyFailure, void>

export const ensure = (ok: boolean, fail: () => VerifyFailure): E.Either<VerifyFailure, void> =>
  ok ? E.right(undefined) : E.left(fail())

/** First failure wins, in declared order: the answer carries one reason. */
export const allOf =
  (rules: ReadonlyArray<Rule>): Rule =>
  (c) =>
    pipe(
      rules,
      RA.traverse(E.Applicative)((rule) => rule(c)),
      E.map(constVoid),
    )

export const SUPPORTED_MAJOR_VERSION = 2

/** Rule 1: the payload and the requirements speak x402 major version 2. */
export const versionIsSupported: Rule = ({ request }) => {
  const { payload, requirements } = request
  const offending = [payload.x402Version, requirements.x402Version].find((v) => v !== SUPPORTED_MAJOR_VERSION)
  return ensure(offending === undefined, () => ({ _tag: 'UnsupportedVersion', version: offending ?? 0 }))
}

/** Rule 2a: only the `exact` scheme, in the payload and in the requirements. */
export const schemeIsExact: Rule = ({ request }) => {
  const offending = [request.payload.scheme, request.requirements.scheme].find((s) => s !== 'exact')
  return ensure(offending === undefined, () => ({ _tag: 'UnsupportedScheme', scheme: offending ?? '' }))
}

/**
 * Rule 2b: the payload and the requirements name the network of this route. A network served by none is answered with
 * every network served; one served by another route (the payload and the requirements disagree) with this route's.
 */
export const networkIsOurs: Rule = ({ request, policy }) => {
  const offending = [request.payload.network, request.requirements.network].find((n) => n !== policy.network)
  const served = policy.servedNetworks ?? [policy.network]
  return ensure(offending === undefined, () => ({
    _tag: 'WrongNetwork',
    network: offending ?? '',
    expected: served.includes(offending ?? '') ? policy.network : served.join('", "'),
  }))
}

/** Rule 3: the requirements ask for the configured token. */
export const assetIsConfigured: Rule = ({ request, policy }) =>
  ensure(request.requirements.asset === policy.asset.address, () => ({
    _tag: 'WrongAsset',
    asset: request.requirements.asset,
    expected: policy.asset.address,
  }))

/** The methods a route's token may be paid by (docs/ARCHITECTURE.md §3 rule 3') [EIP-3009 only]. */
export const transferMethodsOf = (policy: FacilitatorPolicy): ReadonlyArray<TransferMethod> =>
  (policy.asset.transferMethods ?? ['eip3009']).filter((m) => m !== 'permit2' || policy.permit2 !== undefined)

/** Rule 3': the token may be paid by the payment's transfer method (configured per token). */
export const transferMethodIsAllowed: Rule = ({ request, policy }) => {
  const method: TransferMethod = request.payload.authorization.permit2 === undefined ? 'eip3009' : 'permit2'
  const allowed = transferMethodsOf(policy)
  return ensure(allowed.includes(method), () => ({ _tag: 'UnsupportedTransferMethod', method, allowed }))
}

/**
 * Rule 4a: the requirements pay someone. A transfer to the zero address burns the tokens (or reverts) and the
 * facilitator pays its gas; a zero `to` is then refused by rule 4b, since it no longer matches `payTo`.
 */
export const payToIsNotZero: Rule = ({ request }) =>
  ensure(request.requirements.payTo !== ZERO_ADDRESS, () => ({ _tag: 'ZeroRecipient' }))

/** Rule 4b: the authorization pays the required recipient. Addresses are canonical (lower case) after decoding. */
export const recipientMatches: Rule = ({ request }) =>
  ensure(request.payload.authorization.to === request.requirements.payTo, () => ({
    _tag: 'RecipientMismatch',
    expected: request.requirements.payTo,
    actual: request.payload.authorization.to,
  }))

/** Rule 5a: the authorization moves something; a transfer of nothing would only spend the facilitator's gas. */
export const valueIsNotZero: Rule = ({ request }) =>
  ensure(request.payload.authorization.value > 0n, () => ({ _tag: 'ZeroValue' }))

/**
 * Rule 5b: the required amount is at least the operator's minimum (`MIN_AMOUNT`): no settle costs more gas than it is
 * worth.
 */
export const amountMeetsMinimum: Rule = ({ request, policy }) => {
  const minimum = effectiveMinAmount(policy)
  return ensure(request.requirements.amount >= minimum, () => ({
    _tag: 'AmountBelowMinimum',
    amount: request.requirements.amount,
    minimum,
  }))
}

/** Rule 5c: the authorized value is at least the required amount. */
export const valueCoversAmount: Rule = ({ request }) =>
  ensure(request.payload.authorization.value >= request.requirements.amount, () => ({
    _tag: 'ValueBelowAmount',
    value: request.payload.authorization.value,
    amount: request.requirements.amount,
  }))

/**
 * Rule 6: valid now, and still valid after a margin that leaves time to mine the transfer
 * (EIP-3009 requires `validAfter < block.timestamp < validBefore`).
 */
export const withinTimeWindow: Rule = ({ request, policy, now }) => {
  const { validAfter, validBefore } = request.payload.authorization
  const margin = policy.validityMarginSeconds
  return pipe(
    ensure(validAfter < now, () => ({ _tag: 'NotYetValid', validAfter, now })),
    E.chain(() => ensure(now + margin < validBefore, () => ({ _tag: 'Expired', validBefore, now, margin }))),
  )
}

/** Rules 1–6 of docs/ARCHITECTURE.md §3: pure functions of the request, the policy and the clock. */
export const requestRules = allOf([
  versionIsSupported,
  schemeIsExact,
  networkIsOurs,
  assetIsConfigured,
  transferMethodIsAllowed,
  payToIsNotZero,
  recipientMatches,
  valueIsNotZero,
  amountMeetsMinimum,
  valueCoversAmount,
  withinTimeWindow,
])
