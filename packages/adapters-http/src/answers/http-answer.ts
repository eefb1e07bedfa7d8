import * as E from 'fp-ts/lib/Either.js'
import { absurd } from 'fp-ts/lib/function.js'
import type {
  InfrastructureFailure,
  MalformedRequest,
  SettleOutcome,
  SignedReceipt,
  VerifyOutcome,
} from '@x402-facilitator/domain'
import type { Wording } from '../dialects/dialect.js'
import type { Endpoint, FailureCase, ReportCase } from './answer-cases.js'
import { failureTerms, reportTerms, type AnswerSettings } from './answer-map.js'

/** One HTTP answer: the answer map's status, reason code and headers, and a body. */
export interface HttpAnswer {
  readonly status: number
  /** JSON, or text whose `Content-Type` the headers give (`/metrics`). */
  readonly body: Readonly<Record<string, unknown>> | string
  readonly reasonCode?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

export const endpointOf = (path: string): Endpoint =>
  path === '/api/facilitator/verify' ? 'verify' : path === '/api/facilitator/settle' ? 'settle' : 'other'

/** The endpoint's failure body for a code and message. */
export const failureBody = (endpoint: Endpoint, code: string, message: string): Record<string, unknown> => {
  switch (endpoint) {
    case 'verify':
      return { valid: false, invalidReason: message, reasonCode: code }
    case 'settle':
      return { success: false, error: message, errorCode: code }
    case 'other':
      return { error: message, errorCode: code }
  }
}

/** A failure answered in the endpoint's shape. */
export const failureAnswer = (failure: FailureCase, endpoint: Endpoint, settings: AnswerSettings): HttpAnswer => {
  const { status, reasonCode, message, headers } = failureTerms(failure, settings)
  return { status, reasonCode, headers, body: failureBody(endpoint, reasonCode, message) }
}

/** A report: its route's body. */
export const reportAnswer = (report: ReportCase, body: HttpAnswer['body']): HttpAnswer => ({
  ...reportTerms(report),
  body,
})

// Verify and settle answer in the request's dialect: the map gives status, reason code, message and headers, the
// dialect's wording the body (built last, so the answer leaves without coming back here).

export const answerVerify = (
  result: E.Either<InfrastructureFailure, VerifyOutcome>,
  wording: Wording,
  settings: AnswerSettings,
): HttpAnswer => {
  const outcome = E.isLeft(result) ? result.left : result.right
  if (outcome._tag === 'Valid') return { ...reportTerms(outcome), body: wording.valid(outcome.payer) }
  const { status, reasonCode, message, headers } = failureTerms(outcome, settings)
  // A request refused before it named its payer (a Solana transaction that does not decode) names none.
  const payer = outcome._tag === 'Invalid' && outcome.payer !== '' ? outcome.payer : undefined
  return { status, reasonCode, headers, body: wording.invalid(reasonCode, message, payer) }
}

export const answerSettle = (
  result: E.Either<InfrastructureFailure, SettleOutcome>,
  wording: Wording,
  settings: AnswerSettings,
  receipt?: SignedReceipt,
): HttpAnswer => {
  const outcome = E.isLeft(result) ? result.left : result.right
  if (outcome._tag === 'Settled') return { ...reportTerms(outcome), body: wording.settled(outcome, receipt) }
  if (outcome._tag === 'Waived') return { ...reportTerms(outcome), body: wording.waived(outcome) }
  const { status, reasonCode, message, headers } = failureTerms(outcome, settings)
  switch (outcome._tag) {
    case 'Pending':
      return { status, reasonCode, headers, body: wording.pending(reasonCode, message, outcome) }
    case 'Refused':
      return { status, reasonCode, headers, body: wording.refused(reasonCode, message, outcome) }
    case 'IdempotencyConflict':
    case 'ChainUnavailable':
    case 'JournalUnavailable':
      return { status, reasonCode, headers, body: wording.notSettled(reasonCode, message) }
    default:
      return absurd(outcome)
  }
}

/** A body that did not decode: 400 in the request's dialect, naming the field. */
export const answerMalformed = (
  endpoint: 'verify' | 'settle',
  failure: MalformedRequest,
  wording: Wording,
  settings: AnswerSettings,
): HttpAnswer => {
  const { status, reasonCode, message, headers } = failureTerms(failure, settings)
  const body = endpoint === 'verify' ? wording.invalid(reasonCode, message) : wording.notSettled(reasonCode, message)
  return { status, reasonCode, headers, body }
}
