import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { FacilitatorPolicy } from '../model/payment.js'
import type { LaneMechanism } from '../ports/lane-mechanism.js'
import type { Payment, ValidPayment, VerifyOutcome } from '../ports/payment-mechanism.js'
import { settlementKey } from '../ports/settlement-row.js'
import type { SvmPaymentRequest } from './model/svm-payment.js'
import type { SvmRecoveryDeps } from './recovery/recover-svm-rows.js'
import { finishSvmSettlements, recoverSvmSettlements } from './recovery/svm-recovery-passes.js'
import { svmSubmissions, type SvmItem, type SvmSubmissionDeps } from './submission/svm-submissions.js'
import { NOBODY_ELSE } from './svm-payment-ends.js'
import { verifySvmPayment, type SvmVerifyDeps } from './verify-svm-payment.js'

/** One fee payer key's ports (a lane's), from which its SVM mechanism is made. */
export type SvmMechanismDeps = SvmVerifyDeps &
  SvmSubmissionDeps &
  Omit<SvmRecoveryDeps, 'owner'> & { readonly policy: FacilitatorPolicy }

/**
 * The SVM payment mechanism (`exact` on Solana, docs/ARCHITECTURE.md §1): a payment is the payer's transaction, its
 * identity its message's digest, its settle our fee payer's signature added and sent. No batches, no replacements (a
 * transaction's fee is fixed by its payer's compute budget), and nobody else can land it.
 */
export const svmMechanism = (deps: SvmMechanismDeps): LaneMechanism<SvmPaymentRequest> => {
  const recovery: SvmRecoveryDeps = { ...deps, owner: deps.feePayer.address }
  return {
    paymentOf: (request) => svmPayment(deps, request),
    submissions: svmSubmissions(deps),
    recover: ({ startUp }) =>
      recoverSvmSettlements(
        startUp ? { ...recovery, recovery: { ...deps.recovery, minAgeMs: 0, claimTimeoutMs: 0 } } : recovery,
      ),
    finish: (keys) => finishSvmSettlements(recovery, keys),
    replaceStalled: () => TE.right('waiting'),
    ends: NOBODY_ELSE,
    retrial: () => T.of({ wouldSucceed: false, payerHasCode: false }),
    // A released SVM row's transaction can never land: it was released once its blockhash had expired.
    judgeReleased: () => T.of(undefined),
  }
}

const svmPayment = (deps: SvmMechanismDeps, request: SvmPaymentRequest): Payment => {
  const { requirements, payer } = request
  return {
    key: settlementKey(deps.policy, payer, request.transaction.messageId),
    maxTimeoutSeconds: requirements.maxTimeoutSeconds,
    claimTerms: (signature) => ({ payee: requirements.payTo, value: requirements.amount, signature }),
    exposure: () => ({ payer, value: requirements.amount, kind: 'balance' }),
    waiver: () => undefined,
    heldWhileReleased: () => false,
    verify: () =>
      pipe(
        verifySvmPayment(request)(deps),
        TE.map((verdict): VerifyOutcome =>
          verdict._tag === 'Invalid' ? verdict : validPayment(deps, request, verdict.funds),
        ),
      ),
  }
}

const validPayment = (deps: SvmMechanismDeps, request: SvmPaymentRequest, funds: bigint): ValidPayment => {
  const item: SvmItem = { signature: request.wire, payerHasCode: false, payment: request }
  return {
    _tag: 'Valid',
    payer: request.payer,
    funds,
    signature: request.wire,
    payerHasCode: false,
    item,
    unreserved: () => ({
      _tag: 'InsufficientFunds',
      available: funds - deps.exposure.inFlight(request.payer),
      required: request.requirements.amount,
    }),
  }
}
