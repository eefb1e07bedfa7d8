import type { SettleOutcome, VerifyOutcome } from '@x402-facilitator/domain'
import type { FailureCase, ReportCase } from '../../src/answers/answer-cases.js'
import { settleRefusals, verifyFailures } from './refusal-samples.js'
import { PAYEE } from './bodies.js'

export const PAYER = `0x${'12'.repeat(20)}` as const
export const TX_HASH = `0x${'cd'.repeat(32)}` as const
/** The settings the rows are written for: a 503 asks to wait 7 s. */
export const RETRY_AFTER_SECONDS = 7
const RETRY = { 'Retry-After': '7' }
const NO_STORE = { 'Cache-Control': 'no-store' }

/** One entry of the answer map as the wire must show it; `message` where the text is the map's own. */
export interface Row<Case> {
  readonly case: Case
  readonly status: number
  readonly code?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly message?: string
}

type RowsOf<Union extends { readonly _tag: string }> = {
  readonly [Tag in Union['_tag']]: ReadonlyArray<Row<Extract<Union, { readonly _tag: Tag }>>>
}

const unavailable = (reason: string) => `${reason}; nothing was settled, retry later`

/** Every failure, by tag (a new tag of the map fails to compile here): its status, reason code, headers. */
export const failureRows: RowsOf<FailureCase> = {
  Invalid: Object.values(verifyFailures).map(({ refusal, code }) => ({
    case: { _tag: 'Invalid', payer: PAYER, failure: refusal },
    status: 200,
    code,
  })),
  Refused: [...Object.values(verifyFailures), ...Object.values(settleRefusals)].map(({ refusal, code }) => ({
    case: { _tag: 'Refused', payer: PAYER, refusal },
    status: 200,
    code,
  })),
  Pending: [{ case: { _tag: 'Pending', payer: PAYER, txHash: TX_HASH }, status: 202, code: 'settlement_pending' }],
  IdempotencyConflict: [
    {
      case: { _tag: 'IdempotencyConflict', payer: PAYER },
      status: 409,
      code: 'idempotency_key_reused',
      message: 'Idempotency-Key already used with another request',
    },
  ],
  ChainUnavailable: [false, true].map((keyRefused) => ({
    case: { _tag: 'ChainUnavailable', reason: 'node down', ...(keyRefused ? { keyRefused } : {}) },
    status: 503,
    code: 'service_unavailable',
    headers: RETRY,
    message: unavailable('service unavailable: the chain did not answer (node down)'),
  })),
  JournalUnavailable: [
    {
      case: { _tag: 'JournalUnavailable', reason: 'db down' },
      status: 503,
      code: 'service_unavailable',
      headers: RETRY,
      message: unavailable('service unavailable: the settlement journal did not answer (db down)'),
    },
  ],
  LookupUnavailable: [
    {
      case: { _tag: 'LookupUnavailable', failure: { _tag: 'JournalUnavailable', reason: 'db down' } },
      status: 503,
      code: 'service_unavailable',
      headers: RETRY,
      message: 'service unavailable: the settlement journal did not answer (db down)',
    },
  ],
  MalformedRequest: (['invalid_payload', 'invalid_payment_requirements'] as const).map((reasonCode) => ({
    case: { _tag: 'MalformedRequest', reasonCode, field: 'x', message: 'x: is required' },
    status: 400,
    code: reasonCode,
    message: 'x: is required',
  })),
  NotJson: [
    {
      case: { _tag: 'NotJson' },
      status: 415,
      code: 'unsupported_media_type',
      message: 'body: Content-Type must be application/json',
    },
  ],
  UnsupportedEncoding: [
    { case: { _tag: 'UnsupportedEncoding', detail: 'bad "br"' }, status: 415, code: 'unsupported_media_type' },
    {
      case: { _tag: 'UnsupportedEncoding', detail: undefined },
      status: 415,
      code: 'unsupported_media_type',
      message: 'body: unsupported encoding',
    },
  ],
  InvalidJson: [
    { case: { _tag: 'InvalidJson', detail: 'Unexpected end' }, status: 400, code: 'invalid_payload' },
    {
      case: { _tag: 'InvalidJson', detail: undefined },
      status: 400,
      code: 'invalid_payload',
      message: 'body: not valid JSON (parse error)',
    },
  ],
  PayloadTooLarge: [{ case: { _tag: 'PayloadTooLarge', limitBytes: 65536 }, status: 413, code: 'payload_too_large' }],
  InvalidIdempotencyKey: [{ case: { _tag: 'InvalidIdempotencyKey' }, status: 400, code: 'invalid_idempotency_key' }],
  IdempotencyKeyMismatch: [{ case: { _tag: 'IdempotencyKeyMismatch' }, status: 400, code: 'idempotency_key_mismatch' }],
  UptoCallerNotAllowed: [
    { case: { _tag: 'UptoCallerNotAllowed', payTo: PAYEE }, status: 403, code: 'upto_caller_not_allowed' },
  ],
  UptoNeedsApiKey: [{ case: { _tag: 'UptoNeedsApiKey' }, status: 403, code: 'upto_caller_not_allowed' }],
  Unauthorized: [
    { case: { _tag: 'Unauthorized' }, status: 401, code: 'unauthorized', headers: { 'WWW-Authenticate': 'Bearer' } },
  ],
  RateLimited: [
    {
      case: { _tag: 'RateLimited', points: 5, windowSeconds: 60, retryAfter: 3 },
      status: 429,
      code: 'rate_limited',
      headers: { 'Retry-After': '3' },
      message: 'too many requests: at most 5 per 60 s; retry in 3 s',
    },
  ],
  NotFound: [{ case: { _tag: 'NotFound', method: 'GET', path: '/x' }, status: 404, code: 'not_found' }],
  MethodNotAllowed: [
    {
      case: { _tag: 'MethodNotAllowed', method: 'POST', path: '/s', allowed: ['HEAD', 'GET'] },
      status: 405,
      code: 'method_not_allowed',
      headers: { Allow: 'HEAD, GET' },
      message: 'method POST not allowed on /s; allowed: HEAD, GET',
    },
  ],
  InvalidQuery: [
    ...[
      ['txHash', 'txHash: expected 0x + 64 hex digits'],
      ['payer', 'payer: expected a 0x-prefixed 20-byte address'],
      ['nonce', 'nonce: expected a nonce (0x + 64 hex, or a decimal integer)'],
    ].map(([field, message]) => ({
      case: { _tag: 'InvalidQuery' as const, field: field! },
      status: 400,
      code: 'invalid_query',
      message,
    })),
    {
      case: { _tag: 'InvalidQuery', field: 'network', expected: 'a network this facilitator serves: base' },
      status: 400,
      code: 'invalid_query',
      message: 'network: expected a network this facilitator serves: base',
    },
  ],
  SettlementNotFound: [{ case: { _tag: 'SettlementNotFound' }, status: 404, code: 'settlement_not_found' }],
  BatchTransaction: [{ case: { _tag: 'BatchTransaction', txHash: TX_HASH }, status: 409, code: 'batch_transaction' }],
  AmbiguousSettlement: [
    {
      case: {
        _tag: 'AmbiguousSettlement',
        matches: [
          { network: 'base', asset: '0xaa' },
          { network: 'polygon', asset: '0xbb' },
        ],
      },
      status: 409,
      code: 'ambiguous_settlement',
      message:
        'this payer and nonce match settlements on several networks: base (0xaa), polygon (0xbb); name one with network',
    },
  ],
  UnexpectedError: (['verify', 'settle', 'other'] as const).map((endpoint) => ({
    case: { _tag: 'UnexpectedError', endpoint, requestId: 'r-1' },
    status: 500,
    code: endpoint === 'other' ? 'unexpected_error' : `unexpected_${endpoint}_error`,
    message: 'unexpected error; quote request id r-1',
  })),
}

/** The answer reads a passed verify's payer alone. */
export const valid = { _tag: 'Valid', payer: PAYER } as Extract<VerifyOutcome, { readonly _tag: 'Valid' }>
export const settled = (replayed: boolean): Extract<SettleOutcome, { readonly _tag: 'Settled' }> => ({
  _tag: 'Settled',
  payer: PAYER,
  txHash: TX_HASH,
  blockNumber: 7n,
  replayed,
})

/** Every report, by tag: its status, headers (and the one reason code of a report that is not a success). */
export const reportRows: RowsOf<ReportCase> = {
  Valid: [{ case: valid, status: 200 }],
  Settled: [
    { case: settled(false), status: 200 },
    { case: settled(true), status: 200, headers: { 'Idempotency-Replayed': 'true' } },
  ],
  Waived: [
    { case: { _tag: 'Waived', payer: PAYER, replayed: false }, status: 200 },
    {
      case: { _tag: 'Waived', payer: PAYER, replayed: true },
      status: 200,
      headers: { 'Idempotency-Replayed': 'true' },
    },
  ],
  SettlementFound: [{ case: { _tag: 'SettlementFound' }, status: 200 }],
  Healthy: [{ case: { _tag: 'Healthy' }, status: 200, headers: NO_STORE }],
  Ready: [{ case: { _tag: 'Ready' }, status: 200, headers: NO_STORE }],
  NotReady: [{ case: { _tag: 'NotReady' }, status: 503, code: 'not_ready', headers: NO_STORE }],
  Capabilities: [{ case: { _tag: 'Capabilities' }, status: 200, headers: { 'Cache-Control': 'public, max-age=60' } }],
  ApiDescription: [{ case: { _tag: 'ApiDescription' }, status: 200 }],
  Metrics: [
    { case: { _tag: 'Metrics', contentType: 'text/plain' }, status: 200, headers: { 'Content-Type': 'text/plain' } },
  ],
}
