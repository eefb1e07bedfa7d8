import type {
  InfrastructureFailure,
  JournalUnavailable,
  MalformedRequest,
  SettleOutcome,
  VerifyOutcome,
} from '@x402-facilitator/domain'

/** Everything the service answers over HTTP: the cases of the answer map (`answer-map.ts`). */
export type AnswerCase = FailureCase | ReportCase

/** Which failure shape an endpoint answers in (spec: verify uses `valid:false`, settle `success:false`). */
export type Endpoint = 'verify' | 'settle' | 'other'

type Tagged<Union, Tag> = Extract<Union, { readonly _tag: Tag }>

/** Every answer that is not what was asked for: it carries a reason code and a message. */
export type FailureCase =
  | Tagged<VerifyOutcome, 'Invalid'>
  | Exclude<SettleOutcome, { readonly _tag: 'Settled' | 'Waived' }>
  | InfrastructureFailure
  | MalformedRequest
  | HttpFailure

/** A failure the HTTP side finds itself, before or beside the use cases. */
export type HttpFailure =
  | { readonly _tag: 'NotJson' }
  | { readonly _tag: 'UnsupportedEncoding'; readonly detail: unknown }
  | { readonly _tag: 'InvalidJson'; readonly detail: unknown }
  | { readonly _tag: 'PayloadTooLarge'; readonly limitBytes: number }
  | { readonly _tag: 'InvalidIdempotencyKey' }
  /** An Idempotency-Key header and a `payment-identifier` id that differ: which one is the key? */
  | { readonly _tag: 'IdempotencyKeyMismatch' }
  | { readonly _tag: 'Unauthorized' }
  /** An `upto` settle for a payee the caller's API key is not allowed to charge. */
  | { readonly _tag: 'UptoCallerNotAllowed'; readonly payTo: string }
  /** No API keys, on a network where `upto` is not settled for anyone (`ALLOW_OPEN_UPTO`). */
  | { readonly _tag: 'UptoNeedsApiKey' }
  | {
      readonly _tag: 'RateLimited'
      readonly points: number
      readonly windowSeconds: number
      /** Seconds until this client may ask again. */
      readonly retryAfter: number
    }
  | { readonly _tag: 'NotFound'; readonly method: string; readonly path: string }
  | { readonly _tag: 'MethodNotAllowed'; readonly method: string; readonly path: string; readonly allowed: string[] }
  /**
   * `field`: `txHash`, `payer`, `nonce`, `network`, or `query` when the decoder named none; `expected`, what the field
   * takes when it depends on the configuration.
   */
  | { readonly _tag: 'InvalidQuery'; readonly field: string; readonly expected?: string }
  | { readonly _tag: 'SettlementNotFound' }
  | { readonly _tag: 'BatchTransaction'; readonly txHash: string }
  /** A lookup by payer and nonce found the authorization settled on several networks (or tokens). */
  | {
      readonly _tag: 'AmbiguousSettlement'
      readonly matches: ReadonlyArray<{ readonly network: string; readonly asset: string }>
    }
  | { readonly _tag: 'LookupUnavailable'; readonly failure: JournalUnavailable }
  | { readonly _tag: 'UnexpectedError'; readonly endpoint: Endpoint; readonly requestId: string }

/** Every answer whose body is what was asked for: a passed verify, a settlement, a probe's report, a document. */
export type ReportCase =
  | Tagged<VerifyOutcome, 'Valid'>
  | Tagged<SettleOutcome, 'Settled'>
  | Tagged<SettleOutcome, 'Waived'>
  | { readonly _tag: 'SettlementFound' }
  | { readonly _tag: 'Healthy' }
  | { readonly _tag: 'Ready' }
  | { readonly _tag: 'NotReady' }
  | { readonly _tag: 'Capabilities' }
  | { readonly _tag: 'ApiDescription' }
  | { readonly _tag: 'Metrics'; readonly contentType: string }
