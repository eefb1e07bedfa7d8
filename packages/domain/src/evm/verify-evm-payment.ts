import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import type { ChainUnavailable, VerifyFailure } from '../model/failures.js'
import type { FacilitatorPolicy } from '../model/payment.js'
import type { EvmAddress as Address, Hex } from './model/evm-hex.js'
import type { PaymentRequest } from './model/evm-payment.js'
import { hasRecoveryIdV, sendableSignature } from './model/signatures.js'
import type { AddressScreen } from '../ports/address-screen.js'
import type { Clock } from '../ports/clock.js'
import type { PayerExposure } from '../ports/payer-exposure.js'
import type { PaymentTrial } from './ports/token-reader.js'
import type { SignatureCheck, SignatureVerifier } from './ports/signature-verifier.js'
import type { TokenReader } from './ports/token-reader.js'
import {
  authorizationIsUnused,
  hasPermit2Allowance,
  sponsoredPermitRuns,
  hasSufficientBalance,
  signatureRecoversPayer,
  transferWouldSucceed,
} from './rules/chain-rules.js'
import { requestRules, unixSeconds } from './rules/request-rules.js'
import { partiesAreNotDenied } from './rules/screening-rules.js'

export interface VerifyDeps {
  readonly policy: FacilitatorPolicy
  readonly clock: Clock
  readonly signatures: SignatureVerifier
  readonly token: TokenReader
  readonly exposure: PayerExposure
  /** The operator's deny list (rule S1); unset: nobody is denied. The app always sets it. */
  readonly screen?: AddressScreen
}

export type EvmVerifyOutcome =
  /**
   * `payerState` carries the trial of the settle's transaction: its gas sets the transaction's gas limit. `signature`:
   * the bytes the settle sends, the ones the trial ran (`sendableSignature`); `payerHasCode`: the payer's address holds
   * code (the trial read it: a contract, or an EIP-7702-delegated EOA), or rule 7 accepted the signature through the
   * payer's contract (an ERC-6492 wallet not deployed yet).
   */
  | {
      readonly _tag: 'Valid'
      readonly payer: Address
      readonly payerState: PaymentTrial
      readonly signature: Hex
      readonly payerHasCode: boolean
    }
  | { readonly _tag: 'Invalid'; readonly payer: Address; readonly failure: VerifyFailure }

/** docs/ARCHITECTURE.md §3: rules 1–6, S1, 7–10 in order, first failure wins. */
export const verifyPayment =
  (request: PaymentRequest): RTE.ReaderTaskEither<VerifyDeps, ChainUnavailable, EvmVerifyOutcome> =>
  (deps) => {
    const { authorization, signature } = request.payload
    const payer = authorization.from
    const invalid = (failure: VerifyFailure): EvmVerifyOutcome => ({ _tag: 'Invalid', payer, failure })

    // A Permit2 payment's pure rules ran when it was read (rules/transfer-rules.ts `paymentOf`).
    const pure =
      authorization.permit2 === undefined
        ? requestRules({ request, policy: deps.policy, now: unixSeconds(deps.clock.now()) })
        : E.right(undefined)
    if (E.isLeft(pure)) return T.of(E.right(invalid(pure.left)))
    // Rule S1: a denied payer or payee is refused before anything is read from the chain.
    const screened = partiesAreNotDenied(authorization, deps.screen)
    if (E.isLeft(screened)) return T.of(E.right(invalid(screened.left)))

    // Rule 7 and the reads of rules 8–10 (one trial of the transfer) run together; their verdicts are still taken in
    // rule order, so a bad signature is answered as such even while the chain is unreachable. A signature with v 0/1 is
    // sent as 27/28 only when it is the payer's key's and the payer has no code, so rule 7 decides first which bytes
    // the trial runs, and a payer the trial finds with code (an EIP-7702-delegated EOA) is tried again with its bytes
    // verbatim.
    const trialOf = (checked: E.Either<ChainUnavailable, SignatureCheck>) => {
      const byKey = E.isRight(checked) && isByKey(checked.right)
      return pipe(
        deps.token.trialPayment(authorization, sendableSignature(signature, byKey)),
        T.chain((state) =>
          byKey && E.isRight(state) && state.right.payerHasCode === true
            ? deps.token.trialPayment(authorization, signature)
            : T.of(state),
        ),
      )
    }
    const checkedAndTried = hasRecoveryIdV(signature)
      ? pipe(
          deps.signatures.checkAuthorization(authorization, signature),
          T.chain((checked) =>
            pipe(
              trialOf(checked),
              T.map((state) => ({ signature: checked, state })),
            ),
          ),
        )
      : pipe(
          T.Do,
          T.apS('signature', deps.signatures.checkAuthorization(authorization, signature)),
          T.apS('state', deps.token.trialPayment(authorization, signature)),
        )
    return pipe(
      checkedAndTried,
      T.map(({ signature: checked, state }): E.Either<ChainUnavailable, EvmVerifyOutcome> => {
        if (E.isLeft(checked)) return checked
        const signed = signatureRecoversPayer(checked.right, authorization)
        if (E.isLeft(signed)) return E.right(invalid(signed.left))
        if (E.isLeft(state)) return state
        const onChain = pipe(
          authorizationIsUnused(state.right),
          E.chain(() => hasSufficientBalance(state.right, deps.exposure.inFlight(payer), authorization)),
          E.chain(() => sponsoredPermitRuns(state.right, authorization)),
          E.chain(() =>
            hasPermit2Allowance(
              state.right,
              deps.exposure.inFlight(payer),
              authorization,
              deps.exposure.allowanceInFlight(payer),
            ),
          ),
          E.chain(() => transferWouldSucceed(state.right.transfer, authorization)),
        )
        if (E.isLeft(onChain)) return E.right(invalid(onChain.left))
        // "Has code" is the chain's answer (the trial reads the payer's code), not rule 7's path: an EIP-7702-delegated
        // EOA recovers by key and has code. A counterfactual ERC-6492 wallet has none yet, and is a contract all the
        // same.
        const payerHasCode = !isByKey(checked.right) || state.right.payerHasCode === true
        return E.right({
          _tag: 'Valid',
          payer,
          payerState: state.right,
          signature: sendableSignature(signature, !payerHasCode),
          payerHasCode,
        })
      }),
    )
  }

const isByKey = (check: SignatureCheck): boolean => check._tag === 'SignatureValid' && check.byKey === true
