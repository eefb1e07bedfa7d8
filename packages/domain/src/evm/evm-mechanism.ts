import { evmHex, evmRow } from './model/evm-row.js'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Hex } from './model/evm-hex.js'
import type { PaymentRequest } from './model/evm-payment.js'
import { evmPaymentEnds } from './evm-payment-ends.js'
import { paymentKindOf, permit2Conflict } from './model/payment-kind.js'
import type { LaneMechanism } from '../ports/lane-mechanism.js'
import type { ClaimTerms, Payment, ValidPayment, VerifyOutcome } from '../ports/payment-mechanism.js'
import type { BatchItem } from './ports/transfer-submitter.js'
import { settlementKey } from '../ports/settlement-row.js'
import type { PaymentTrial } from './ports/token-reader.js'
import { insufficientFunds } from './rules/chain-rules.js'
import type { Settler } from './ports/settler.js'
import { releasedRowJudge } from './recovery/judge-released.js'
import { finishSettlements, recoverSettlements, type RecoveryDeps } from './recovery/recover-settlements.js'
import { replaceStalled } from './recovery/replace-stalled.js'
import { makeSubmissionQueue } from './submission/submission-queue.js'
import { verifyPayment, type EvmVerifyOutcome, type VerifyDeps } from './verify-evm-payment.js'

/** One signing key's ports (a lane's), from which its EVM mechanism is made. */
export type EvmMechanismDeps = VerifyDeps &
  RecoveryDeps & {
    /** The batch settler of the network's token, when there is one: payments go together through it (§5.7). */
    readonly settler?: Pick<Settler, 'maxItems' | 'windowMs'>
  }

/** The EVM payment mechanism over its ports: EIP-3009 and Permit2 payments, judged by rules 1–10 (§3). */
export const evmMechanism = (deps: EvmMechanismDeps): LaneMechanism<PaymentRequest> => ({
  paymentOf: (request) => evmPayment(deps, request),
  judgeReleased: (row) => releasedRowJudge(deps)(evmRow(row)),
  submissions: makeSubmissionQueue(deps, { maxItems: deps.settler?.maxItems ?? 1, windowMs: deps.settler?.windowMs }),
  recover: ({ startUp }) =>
    recoverSettlements(startUp ? { ...deps, recovery: { ...deps.recovery, minAgeMs: 0, claimTimeoutMs: 0 } } : deps),
  finish: (keys) => finishSettlements(keys)(deps),
  replaceStalled: (txHash) => replaceStalled(evmHex(txHash))(deps),
  ...(deps.submitter.onStalled === undefined ? {} : { onStalled: deps.submitter.onStalled }),
  ends: evmPaymentEnds(deps.token),
  retrial: (submitted) => {
    const item = submitted as BatchItem // this mechanism's own item (validPayment)
    return pipe(
      deps.token.trialPayment(item.authorization, item.signature),
      T.map((trial) => ({
        wouldSucceed:
          E.isRight(trial) && !trial.right.authorizationUsed && trial.right.transfer._tag === 'WouldSucceed',
        payerHasCode: item.payerHasCode === true || (E.isRight(trial) && trial.right.payerHasCode === true),
      })),
    )
  },
})

/** An EIP-3009 or Permit2 payment (its request read onto the authorization's fields) as the settle use case sees it. */
const evmPayment = (deps: EvmMechanismDeps, request: PaymentRequest): Payment => {
  const { authorization } = request.payload
  return {
    key: settlementKey(deps.policy, authorization.from, authorization.nonce),
    maxTimeoutSeconds: request.requirements.maxTimeoutSeconds,
    claimTerms: (signature) => claimTerms(deps, request, evmHex(signature)),
    exposure: () => ({
      payer: authorization.from,
      value: authorization.value,
      kind: paymentKindOf(authorization.permit2),
    }),
    waiver: () => {
      const asSigned = waiverOf(request)
      return asSigned === undefined ? undefined : evmPayment(deps, asSigned)
    },
    // journal-permit2-claim-sql.ts: a released Permit2 row is held while an attempt of it may still be mined.
    heldWhileReleased: (row) =>
      row.state === 'released' && row.permit2 !== undefined && authorization.permit2 !== undefined,
    verify: () =>
      pipe(
        verifyPayment(request)(deps),
        TE.map((verdict): VerifyOutcome =>
          verdict._tag === 'Invalid' ? verdict : validPayment(deps, request, verdict),
        ),
      ),
  }
}

type EvmValid = Extract<EvmVerifyOutcome, { readonly _tag: 'Valid' }>

/** The verdict as a settle goes on with it: what it submits, the funds read, and why it could not be reserved. */
const validPayment = (deps: EvmMechanismDeps, request: PaymentRequest, verdict: EvmValid): ValidPayment => ({
  _tag: 'Valid',
  payer: verdict.payer,
  funds: verdict.payerState.balance,
  signature: verdict.signature,
  payerHasCode: verdict.payerHasCode,
  item: itemOf(request, verdict),
  unreserved: () => unreservedRefusal(deps, request, verdict.payerState),
})

/** What the settle sends: the bytes verify judged and tried, and what the trial used. */
const itemOf = ({ payload }: PaymentRequest, verdict: EvmValid): BatchItem => {
  const { transfer } = verdict.payerState
  const { signature, payerHasCode } = verdict
  const item = { authorization: payload.authorization, signature, payerHasCode }
  if (transfer._tag !== 'WouldSucceed') return item
  const cap = transfer.gasCap === undefined ? {} : { trialGasCap: transfer.gasCap }
  return { ...item, executionGas: transfer.gasUsed, ...cap }
}

/**
 * An `upto` settle of 0: the resource server used nothing. Verify judges the authorization as signed (its maximum: the
 * proxy refuses a transfer of 0, so that is what is tried).
 */
const waiverOf = (request: PaymentRequest): PaymentRequest | undefined => {
  const { authorization } = request.payload
  const { permit2, value } = authorization
  if (permit2?.scheme !== 'upto' || value !== 0n) return undefined
  return { ...request, payload: { ...request.payload, authorization: { ...authorization, value: permit2.permitted } } }
}

/**
 * The row stores the bytes sent (`sendableSignature`), so a re-signed attempt sends them too; a Permit2 payment's terms
 * with them, and `value` is what its transaction moves (an `upto` settle's amount, never the maximum: recovery and fee
 * replacements send from the row). Its nonce is Permit2's, across every token of the network.
 */
const claimTerms = ({ policy }: EvmMechanismDeps, { payload }: PaymentRequest, signature: Hex): ClaimTerms => {
  const { to, value, validAfter, validBefore, permit2 } = payload.authorization
  return {
    payee: to,
    value,
    validAfter,
    validBefore,
    signature,
    ...(permit2 === undefined || policy.permit2 === undefined ? {} : { permit2, nonceSpace: policy.permit2.permit2 }),
  }
}

/** The balance taken meanwhile, or (rule 9′) a sponsored permit meeting another Permit2 payment of the payer's. */
const unreservedRefusal = ({ exposure }: EvmMechanismDeps, request: PaymentRequest, trial: PaymentTrial) => {
  const { authorization } = request.payload
  const inFlight = exposure.inFlight(authorization.from)
  const inFlightThroughPermit2 = exposure.allowanceInFlight(authorization.from)
  const conflict = permit2Conflict(paymentKindOf(authorization.permit2), inFlightThroughPermit2)
  return conflict === undefined
    ? insufficientFunds(trial, inFlight, authorization)
    : { _tag: 'Permit2AllowanceInFlight' as const, conflict, payments: inFlightThroughPermit2.payments }
}
