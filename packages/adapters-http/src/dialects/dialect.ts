import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import {
  toMalformedRequest,
  type Address,
  type MalformedRequest,
  type FamilyRequest,
  type SettleOptions,
  type SettleOutcome,
  type SettleRefusal,
  type SignedReceipt,
  type VerifyFailure,
} from '@x402-facilitator/domain'
import type { DeclarationReading } from '../discovery/declared-resource.js'
import { refuseNul } from './nul-in-body.js'

/**
 * A verify/settle body, decoded: the request, and its requirements as received (kept for audit,
 * docs/ARCHITECTURE.md §5.2).
 */
export interface DecodedRequest extends DecodedPayment {
  readonly requirementsRecord: SettleOptions['requirementsRecord']
}

/**
 * A payment as a dialect's decoder reads it, and the id of x402 v2's `payment-identifier` extension when it carries
 * one: kept beside the request, out of its digest (docs/ARCHITECTURE.md §5.2).
 */
export interface DecodedPayment {
  readonly request: FamilyRequest
  readonly paymentId?: string
}

type Body = Record<string, unknown>
type Outcome<Tag extends SettleOutcome['_tag']> = Extract<SettleOutcome, { readonly _tag: Tag }>

/**
 * How a dialect words each answer's body. Its status, reason code and headers are the same in every dialect: the
 * answer map's (`answers/answer-map.ts`, docs/ARCHITECTURE.md §4).
 */
export interface Wording {
  readonly valid: (payer: Address) => Body
  /** A verify that did not pass: a rule (the payer is known), the service, or the body. */
  readonly invalid: (code: string, message: string, payer?: Address) => Body
  /** `receipt`: the signed settlement receipt, when the service has an attestation key (docs/ARCHITECTURE.md §4). */
  readonly settled: (outcome: Outcome<'Settled'>, receipt?: SignedReceipt) => Body
  /** An `upto` settle of 0: success without a transaction (x402 v2 only). */
  readonly waived: (outcome: Outcome<'Waived'>) => Body
  readonly pending: (code: string, message: string, outcome: Outcome<'Pending'>) => Body
  readonly refused: (code: string, message: string, outcome: Outcome<'Refused'>) => Body
  /** A settle that did nothing: the service, a reused Idempotency-Key, or the body. */
  readonly notSettled: (code: string, message: string) => Body
}

/** A wire format of verify/settle: how a body is decoded and how its answers are worded. */
export interface Dialect {
  readonly decode: (body: unknown) => E.Either<MalformedRequest, DecodedRequest>
  /** What a body declares for discovery, read only once its payment settled (none in the spec dialect). */
  readonly declarationOf?: (body: unknown) => DeclarationReading
  /** The wording of an answer to a body that did not decode. */
  readonly wording: Wording
  /** The wording of an answer to a decoded request (x402 v2 names the request's network in it). */
  readonly wordingFor: (request: FamilyRequest) => Wording
}

export interface Dialects {
  readonly spec: Dialect
  readonly x402V1: Dialect
  readonly x402V2: Dialect
}

export type RequestDecoder = (body: unknown) => E.Either<MalformedRequest, DecodedPayment>

/**
 * A decoder of the request alone as a RequestDecoder (no extension to read). No callback of this file runs after the
 * inner decoder: a settle's walk leaves this file once (docs/ARCHITECTURE.md §9).
 */
export const decodingRequestOnly =
  (decodeRequest: (body: unknown) => E.Either<MalformedRequest, FamilyRequest>): RequestDecoder =>
  (body) => {
    const request = decodeRequest(body)
    return E.isLeft(request) ? request : E.right({ request: request.right })
  }

/** The official x402 v2 request: requirements also ride in the payload, under `accepted`. */
export const isX402V2Body = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  'paymentPayload' in body &&
  typeof body.paymentPayload === 'object' &&
  body.paymentPayload !== null &&
  'accepted' in body.paymentPayload

/**
 * x402 v1's request: the legacy client sends `x402Version: 1` (a JSON integer) at the top, and v1's requirements ask
 * `maxAmountRequired`. A spec body whose version is "1" is neither: rule 1 refuses it.
 */
export const isX402V1Body = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  (('x402Version' in body && body.x402Version === 1) ||
    ('paymentRequirements' in body &&
      typeof body.paymentRequirements === 'object' &&
      body.paymentRequirements !== null &&
      'maxAmountRequired' in body.paymentRequirements))

/** The dialect a body's shape names (all run the same use cases). */
export const dialectOf = (body: unknown, dialects: Dialects): Dialect =>
  isX402V2Body(body) ? dialects.x402V2 : isX402V1Body(body) ? dialects.x402V1 : dialects.spec

/**
 * Every dialect carries the requirements at the top of the body: that object, as received, is what the journal keeps.
 */
const ReceivedRequirements = t.type({ paymentRequirements: t.UnknownRecord })

/**
 * The request, then rule 0 and the requirements as received. All three read the body before the request's decoder
 * runs (a failure to decode still wins, naming its field), so that a request's walk leaves this file once.
 */
const decodeKeepingRequirements =
  (decodeRequest: RequestDecoder) =>
  (body: unknown): E.Either<MalformedRequest, DecodedRequest> => {
    const received = ReceivedRequirements.decode(body)
    const nulFree = refuseNul(body)
    const request = decodeRequest(body)
    if (E.isLeft(request)) return request
    if (E.isLeft(nulFree)) return nulFree
    // Once the request decoded this cannot fail (its codec required the same object); decoding lets the type say so.
    if (E.isLeft(received)) return E.left(toMalformedRequest(received.left))
    return E.right({ ...request.right, requirementsRecord: received.right.paymentRequirements })
  }

/** A dialect from its request decoder and its wording (the same for every request unless `wordingFor` says). */
export const makeDialect = (
  decodeRequest: RequestDecoder,
  wording: Wording,
  wordingFor: (request: FamilyRequest) => Wording = () => wording,
  declarationOf?: (body: unknown) => DeclarationReading,
): Dialect => ({
  decode: decodeKeepingRequirements(decodeRequest),
  wording,
  wordingFor,
  ...(declarationOf === undefined ? {} : { declarationOf }),
})

/** The earlier transaction (and its state) that a refusal points at, so the caller can look it up. */
export const refusalContext = (
  refusal: VerifyFailure | SettleRefusal,
): { txHash?: string; settlementState?: string } =>
  refusal._tag === 'AlreadySettling'
    ? { settlementState: refusal.state, txHash: refusal.txHash }
    : refusal._tag === 'TransactionReverted'
      ? { txHash: refusal.txHash, settlementState: 'reverted' }
      : {}
