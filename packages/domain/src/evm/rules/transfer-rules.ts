import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PaymentPhase, UnservedRequest } from '../../ports/request-reader.js'
import { effectiveMinAmount, type FacilitatorPolicy } from '../../model/payment.js'
import { type PaymentRequest } from '../model/evm-payment.js'
import { CANONICAL_PERMIT2_CONTRACTS } from '../model/permit2-contracts.js'
import { isPermit2Request, type AnyPaymentRequest, type Permit2PaymentRequest } from '../model/permit2-payment.js'
import { permit2Rules } from './permit2-rules.js'
import {
  allOf,
  assetIsConfigured,
  ensure,
  networkIsOurs,
  payToIsNotZero,
  versionIsSupported,
  transferMethodIsAllowed,
  transferMethodsOf,
  type Rule,
} from './request-rules.js'

/** A request refused before it became a payment (`upto`: verify judges its maximum; settle charges `amount`). */
export type UnservedTransfer = UnservedRequest

export interface TransferRuleContext {
  readonly policy: FacilitatorPolicy
  readonly now: bigint
  readonly phase: PaymentPhase
}

/**
 * Rule 2a': `exact`, or `upto` (a Permit2 payment of a token paid by Permit2, on a network with the upto proxy), in
 * the payload and in the requirements alike.
 */
const schemeIsExactOrUpto: Rule = ({ request, policy }) => {
  const { payload, requirements } = request
  const offending = [payload.scheme, requirements.scheme].find((s) => s !== 'exact' && s !== 'upto')
  const upto = payload.scheme === 'upto' || requirements.scheme === 'upto'
  const uptoRefused = upto && (payload.scheme !== requirements.scheme || !transferMethodsOf(policy).includes('permit2'))
  const scheme = offending ?? (uptoRefused ? 'upto' : undefined)
  if (scheme !== undefined) return E.left({ _tag: 'UnsupportedScheme', scheme })
  return ensure(!upto || policy.permit2?.uptoProxy !== undefined, () => ({
    _tag: 'UnsupportedScheme',
    scheme: 'upto',
    noUptoProxy: true,
  }))
}

/** Rule 5b on a Permit2 payment: the permitted amount (for `upto`, the maximum) is at least `MIN_AMOUNT`. */
const permittedMeetsMinimum: Rule = ({ request, policy }) => {
  const amount = request.payload.authorization.permit2?.permitted ?? 0n
  const minimum = effectiveMinAmount(policy)
  return ensure(amount >= minimum, () => ({ _tag: 'AmountBelowMinimum', amount, minimum }))
}

/** The rules of a Permit2 payment that read what every payment has: 1, 2a', 2b, 3, 3', 4a; then P*, 5b. */
const permit2RequestRules = allOf([
  versionIsSupported,
  schemeIsExactOrUpto,
  networkIsOurs,
  assetIsConfigured,
  transferMethodIsAllowed,
  payToIsNotZero,
])

/**
 * A Permit2 payment read onto the fields every authorization has (model/payment.ts `Authorization`): what the
 * transaction moves is the permitted amount, except for an `upto` settle, which moves `requirements.amount`.
 */
export const permit2Payment = ({ payload, requirements }: Permit2PaymentRequest, phase: PaymentPhase) => {
  const p = payload.permit2Authorization
  const scheme = payload.scheme === 'upto' || requirements.scheme === 'upto' ? 'upto' : 'exact'
  const sponsored = payload.sponsoredPermit
  const request: PaymentRequest = {
    payload: {
      x402Version: payload.x402Version,
      scheme: payload.scheme,
      network: payload.network,
      signature: payload.signature,
      authorization: {
        from: p.from,
        to: p.witness.to,
        value: scheme === 'upto' && phase === 'settle' ? requirements.amount : p.permitted.amount,
        validAfter: p.witness.validAfter,
        validBefore: p.deadline,
        nonce: p.nonce,
        permit2: {
          scheme,
          permitted: p.permitted.amount,
          spender: p.spender,
          ...(p.witness.facilitator === undefined ? {} : { facilitator: p.witness.facilitator }),
          ...(sponsored === undefined
            ? {}
            : {
                sponsoredPermit: {
                  value: sponsored.amount,
                  nonce: sponsored.nonce,
                  deadline: sponsored.deadline,
                  signature: sponsored.signature,
                },
              }),
        },
      },
    },
    requirements,
  }
  return request
}

/**
 * What a decoded request pays, as the use cases verify and settle it (docs/ARCHITECTURE.md §3, rule 2c): an EIP-3009
 * request as it is (rules 1–10 judge it); a Permit2 one (x402 v2 `exact` with Permit2, or `upto`) after its own pure
 * rules, in @x402/evm 2.27's order, read onto the fields every authorization has (`permit2Payment`). Rules 7–10 then
 * judge either alike.
 */
export const paymentOf = (
  request: AnyPaymentRequest,
  { policy, now, phase }: TransferRuleContext,
): E.Either<UnservedTransfer, PaymentRequest> => {
  if (!isPermit2Request(request)) return E.right(request)
  const payment = permit2Payment(request, phase)
  const c = { request: payment, policy, now }
  return pipe(
    permit2RequestRules(c),
    E.chain(() =>
      permit2Rules({
        request,
        policy,
        now,
        phase,
        // Rule 3' passed: the token is paid by Permit2, so the network's contracts are known.
        contracts: policy.permit2 ?? CANONICAL_PERMIT2_CONTRACTS,
        facilitators: policy.uptoFacilitators ?? [],
      }),
    ),
    E.chain(() => permittedMeetsMinimum(c)),
    E.bimap(
      (failure) => ({ payer: request.payload.permit2Authorization.from, failure }),
      () => payment,
    ),
  )
}
