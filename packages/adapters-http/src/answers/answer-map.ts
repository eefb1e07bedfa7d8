import { absurd } from 'fp-ts/lib/function.js'
import {
  explainRefusal,
  type InfrastructureFailure,
  type MechanismExplainer,
  type NetworkToken,
  type TokenInfo,
} from '@x402-facilitator/domain'
import type { FailureCase, ReportCase } from './answer-cases.js'
import { REFUSAL_STATUS } from './refusal-status.js'

export { REFUSAL_STATUS } from './refusal-status.js'

/**
 * The one map from every case the service answers (`answer-cases.ts`) to its HTTP status, reason code, message and
 * headers (docs/ARCHITECTURE.md §4). Bodies: a failure's is its endpoint's shape (`http-answer.ts`) or, for verify
 * and settle, its dialect's wording; a report's is what its route was asked for.
 */

type Headers = Readonly<Record<string, string>>

export interface AnswerTerms {
  readonly status: number
  /** Why the answer is what it is, for the body, the access log and metrics; none on success. */
  readonly reasonCode?: string
  readonly headers?: Headers
}

export interface FailureTerms extends AnswerTerms {
  readonly reasonCode: string
  readonly message: string
}

/** What the map needs of the configuration. */
export interface AnswerSettings {
  /**
   * Its symbol and decimals word the amounts of a refusal: the token the request named when it is served
   * (`served-networks.ts`), else the default one.
   */
  readonly token: TokenInfo
  /** Seconds a 503 `service_unavailable` asks the client to wait. */
  readonly retryAfterSeconds: number
  /** The payment mechanism's wording of its own refusals (the EVM's: Permit2's). */
  readonly explainMechanism: MechanismExplainer
  /** Every token of the request's network, when it is served: a refusal of another token lists them. */
  readonly networkTokens?: ReadonlyArray<NetworkToken>
}

const refusalTerms = ({ token, explainMechanism, networkTokens }: AnswerSettings) => ({
  asset: token,
  explainMechanism,
  ...(networkTokens === undefined ? {} : { networkTokens }),
})

const PENDING_MESSAGE =
  'settlement pending: the transaction was broadcast but not confirmed in time; ' +
  'look it up by its hash, do not pay again'

const UNAVAILABLE_PART: Record<InfrastructureFailure['_tag'], string> = {
  ChainUnavailable: 'chain',
  JournalUnavailable: 'settlement journal',
}

/** The one wording of a 503: which part did not answer. */
const didNotAnswer = ({ _tag, reason }: InfrastructureFailure) =>
  `service unavailable: the ${UNAVAILABLE_PART[_tag]} did not answer (${reason})`

const queryExpects = (field: string) =>
  field === 'txHash'
    ? '0x + 64 hex digits'
    : field === 'payer'
      ? 'a 0x-prefixed 20-byte address'
      : 'a nonce (0x + 64 hex, or a decimal integer)'

const failed = (status: number, reasonCode: string, message: string, headers?: Headers): FailureTerms =>
  headers === undefined ? { status, reasonCode, message } : { status, reasonCode, message, headers }

/** Every failure → status, reason code, message and headers. */
export const failureTerms = (failure: FailureCase, settings: AnswerSettings): FailureTerms => {
  const retryLater = { 'Retry-After': String(settings.retryAfterSeconds) }
  switch (failure._tag) {
    case 'Invalid':
      return {
        status: REFUSAL_STATUS[failure.failure._tag],
        ...explainRefusal(failure.failure, refusalTerms(settings)),
      }
    case 'Refused':
      return {
        status: REFUSAL_STATUS[failure.refusal._tag],
        ...explainRefusal(failure.refusal, refusalTerms(settings)),
      }
    case 'Pending':
      return failed(202, 'settlement_pending', PENDING_MESSAGE)
    case 'IdempotencyConflict':
      return failed(409, 'idempotency_key_reused', 'Idempotency-Key already used with another request')
    case 'ChainUnavailable':
    case 'JournalUnavailable': {
      const message = `${didNotAnswer(failure)}; nothing was settled, retry later`
      return failed(503, 'service_unavailable', message, retryLater)
    }
    case 'LookupUnavailable':
      return failed(503, 'service_unavailable', didNotAnswer(failure.failure), retryLater)
    case 'MalformedRequest':
      return failed(400, failure.reasonCode, failure.message)
    case 'NotJson':
      return failed(415, 'unsupported_media_type', 'body: Content-Type must be application/json')
    case 'UnsupportedEncoding':
      return failed(415, 'unsupported_media_type', `body: ${failure.detail ?? 'unsupported encoding'}`)
    case 'InvalidJson':
      return failed(400, 'invalid_payload', `body: not valid JSON (${failure.detail ?? 'parse error'})`)
    case 'PayloadTooLarge':
      return failed(413, 'payload_too_large', `body: larger than the limit of ${failure.limitBytes} bytes`)
    case 'InvalidIdempotencyKey':
      return failed(400, 'invalid_idempotency_key', 'Idempotency-Key: expected 1 to 255 visible ASCII characters')
    case 'IdempotencyKeyMismatch': {
      const message =
        'Idempotency-Key: differs from paymentPayload.extensions.payment-identifier.info.id; send one, or both equal'
      return failed(400, 'idempotency_key_mismatch', message)
    }
    case 'Unauthorized': {
      const message = 'a valid API key is required: Authorization: Bearer <key>'
      return failed(401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer' })
    }
    case 'UptoCallerNotAllowed': {
      const message =
        `this API key may not settle upto payments for ${failure.payTo}: whoever settles upto picks the amount ` +
        `charged, so each key names the payees it settles for`
      return failed(403, 'upto_caller_not_allowed', message)
    }
    case 'UptoNeedsApiKey': {
      const message =
        `upto payments are settled here only for API keys that name their payees: whoever settles upto picks the ` +
        `amount charged, and this facilitator runs without API keys (ALLOW_OPEN_UPTO=true settles them for anyone)`
      return failed(403, 'upto_caller_not_allowed', message)
    }
    case 'RateLimited': {
      const { points, windowSeconds, retryAfter } = failure
      const message = `too many requests: at most ${points} per ${windowSeconds} s; retry in ${retryAfter} s`
      return failed(429, 'rate_limited', message, { 'Retry-After': String(retryAfter) })
    }
    case 'NotFound':
      return failed(404, 'not_found', `no such endpoint: ${failure.method} ${failure.path}`)
    case 'MethodNotAllowed': {
      const allowed = failure.allowed.join(', ')
      const message = `method ${failure.method} not allowed on ${failure.path}; allowed: ${allowed}`
      return failed(405, 'method_not_allowed', message, { Allow: allowed })
    }
    case 'InvalidQuery':
      return failed(
        400,
        'invalid_query',
        `${failure.field}: expected ${failure.expected ?? queryExpects(failure.field)}`,
      )
    case 'SettlementNotFound':
      return failed(404, 'settlement_not_found', 'no settlement is known for this query')
    case 'BatchTransaction': {
      const message =
        `transaction ${failure.txHash} settles several payments (a settler batch): ` + `look one up by payer and nonce`
      return failed(409, 'batch_transaction', message)
    }
    case 'AmbiguousSettlement': {
      const where = failure.matches.map(({ network, asset }) => `${network} (${asset})`).join(', ')
      const message = `this payer and nonce match settlements on several networks: ${where}; name one with network`
      return failed(409, 'ambiguous_settlement', message)
    }
    case 'UnexpectedError': {
      const { endpoint, requestId } = failure
      const reasonCode = endpoint === 'other' ? 'unexpected_error' : `unexpected_${endpoint}_error`
      return failed(500, reasonCode, `unexpected error; quote request id ${requestId}`)
    }
    default:
      return absurd(failure)
  }
}

const NO_STORE = { 'Cache-Control': 'no-store' }

/** Every report → status, headers (and a reason code for the one that is not a success). */
export const reportTerms = (report: ReportCase): AnswerTerms => {
  switch (report._tag) {
    case 'Valid':
    case 'SettlementFound':
    case 'ApiDescription':
      return { status: 200 }
    // An idempotent retry's stored outcome, said where every client can see it (docs/ARCHITECTURE.md §4).
    case 'Settled':
    case 'Waived':
      return report.replayed ? { status: 200, headers: { 'Idempotency-Replayed': 'true' } } : { status: 200 }
    case 'Healthy':
    case 'Ready':
      return { status: 200, headers: NO_STORE }
    // For orchestrators: no Retry-After.
    case 'NotReady':
      return { status: 503, reasonCode: 'not_ready', headers: NO_STORE }
    // Capabilities change only with configuration (spec, Limits).
    case 'Capabilities':
      return { status: 200, headers: { 'Cache-Control': 'public, max-age=60' } }
    case 'Metrics':
      return { status: 200, headers: { 'Content-Type': report.contentType } }
    default:
      return absurd(report)
  }
}
