import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import type { ChainUnavailable, VerifyFailure } from '../model/failures.js'
import type { Address, FacilitatorPolicy, PaymentRequest } from '../model/payment.js'
import { unixSeconds, type Clock } from '../ports/clock.js'
import type { PayerExposure } from '../ports/payer-exposure.js'
import type { SignatureVerifier } from '../ports/signature-verifier.js'
import type { PaymentTrial, TokenReader } from '../ports/token-reader.js'
import { authorizationIsUnused } from '../rules/authorization-is-unused.js'
import { hasSufficientBalance } from '../rules/has-sufficient-balance.js'
import { requestRules } from '../rules/request-rules.js'
import { signatureRecoversPayer } from '../rules/signature-recovers-payer.js'
import { transferWouldSucceed } from '../rules/transfer-would-succeed.js'

export interface VerifyDeps {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  readonly signatures: SignatureVerifier
  readonly token: TokenReader
  readonly exposure: PayerExposure
}

export type VerifyOutcome =
  /** `payerState` carries the trial of the settle's transaction: its gas sets the transaction's gas limit. */
  | { readonly _tag: 'Valid'; readonly payer: Address; readonly payerState: PaymentTrial }
  | { readonly _tag: 'Invalid'; readonly payer: Address; readonly failure: VerifyFailure }

/** docs/ARCHITECTURE.md §3: rules 1–10 in order, first failure wins. */
export const verifyPayment =
  (request: PaymentRequest): RTE.ReaderTaskEither<VerifyDeps, ChainUnavailable, VerifyOutcome> =>
  (deps) => {
    const { authorization, signature } = request.payload
    const payer = authorization.from
    const invalid = (failure: VerifyFailure): VerifyOutcome => ({ _tag: 'Invalid', payer, failure })

    const pure = requestRules({ request, policy: deps.policy, now: unixSeconds(deps.clock.now()) })
    if (E.isLeft(pure)) return T.of(E.right(invalid(pure.left)))

    // Rule 7 and the reads of rules 8–10 (one trial of the transfer) run together; their verdicts are still taken in rule order,
    // so a bad signature is answered as such even while the chain is unreachable.
    return pipe(
      T.Do,
      T.apS('signature', deps.signatures.checkAuthorization(authorization, signature)),
      T.apS('state', deps.token.trialPayment(authorization, signature)),
      T.map(({ signature: checked, state }): E.Either<ChainUnavailable, VerifyOutcome> => {
        if (E.isLeft(checked)) return checked
        const signed = signatureRecoversPayer(checked.right)
        if (E.isLeft(signed)) return E.right(invalid(signed.left))
        if (E.isLeft(state)) return state
        const onChain = pipe(
          authorizationIsUnused(state.right),
          E.chain(() => hasSufficientBalance(state.right, deps.exposure.inFlight(payer), authorization)),
          E.chain(() => transferWouldSucceed(state.right.transfer, authorization)),
        )
        return E.right(E.isLeft(onChain) ? invalid(onChain.left) : { _tag: 'Valid', payer, payerState: state.right })
      }),
    )
  }
