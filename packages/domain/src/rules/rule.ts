import * as E from 'fp-ts/lib/Either.js'
import { constVoid, pipe } from 'fp-ts/lib/function.js'
import * as RA from 'fp-ts/lib/ReadonlyArray.js'
import type { VerifyFailure } from '../model/failures.js'
import type { FacilitatorPolicy, PaymentRequest } from '../model/payment.js'

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
    pipe(rules, RA.traverse(E.Applicative)((rule) => rule(c)), E.map(constVoid))
