import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import {
  explainRefusal,
  toMalformedRequest,
  type Address,
  type FacilitatorPolicy,
  type MalformedRequest,
  type PaymentRequest,
  type SettleOutcome,
} from '@x402-facilitator/domain'
import { refuseNul } from './nul-free.js'
import { idempotencyConflictMessage, PENDING_MESSAGE, unavailable, type DecodedRequest, type Dialect } from './dialect.js'

type Body = Record<string, unknown>
type Outcome<Tag extends SettleOutcome['_tag']> = Extract<SettleOutcome, { readonly _tag: Tag }>

/** How a dialect words each outcome. Which status and reason code go with it is the same in every dialect (docs/ARCHITECTURE.md §4). */
export interface Wording {
  readonly valid: (payer: Address) => Body
  /** A verify that did not pass: a rule (the payer is known), the service, or the body. */
  readonly invalid: (code: string, message: string, payer?: Address) => Body
  readonly settled: (outcome: Outcome<'Settled'>) => Body
  readonly pending: (code: string, message: string, outcome: Outcome<'Pending'>) => Body
  readonly refused: (code: string, message: string, outcome: Outcome<'Refused'>) => Body
  /** A settle that did nothing: the service, a reused Idempotency-Key, or the body. */
  readonly notSettled: (code: string, message: string) => Body
}

export type RequestDecoder = (body: unknown) => E.Either<MalformedRequest, PaymentRequest>

/**
 * Every dialect carries the requirements at the top of the body: that object, as received, is what the journal keeps.
 * Once the request decoded this cannot fail (its codec required the same object); decoding it lets the type say so.
 */
const ReceivedRequirements = t.type({ paymentRequirements: t.UnknownRecord })

const keepingRequirements =
  (decodeRequest: RequestDecoder) =>
  (body: unknown): E.Either<MalformedRequest, DecodedRequest> =>
    pipe(
      decodeRequest(body),
      E.chainFirst(() => refuseNul(body)),
      E.chain((request) =>
        pipe(
          ReceivedRequirements.decode(body),
          E.bimap(
            (errors) => toMalformedRequest(errors),
            (received) => ({ request, requirementsRecord: received.paymentRequirements }),
          ),
        ),
      ),
    )

const UNAVAILABLE = 'service_unavailable'
/** An idempotent retry's stored outcome, said where every client can see it (docs/ARCHITECTURE.md §4). */
const REPLAYED_HEADERS = { 'Idempotency-Replayed': 'true' }

/** A dialect from its request decoder and its wording. */
export const makeDialect = (decodeRequest: RequestDecoder, wording: Wording, policy: FacilitatorPolicy): Dialect => ({
  decode: keepingRequirements(decodeRequest),
  verifyAnswer: (result) => {
    if (E.isLeft(result)) return { status: 503, body: wording.invalid(UNAVAILABLE, unavailable(result.left)), reasonCode: UNAVAILABLE }
    const outcome = result.right
    if (outcome._tag === 'Valid') return { status: 200, body: wording.valid(outcome.payer) }
    const { reasonCode, message } = explainRefusal(outcome.failure, policy)
    return { status: 200, body: wording.invalid(reasonCode, message, outcome.payer), reasonCode }
  },
  settleAnswer: (result) => {
    if (E.isLeft(result)) return { status: 503, body: wording.notSettled(UNAVAILABLE, unavailable(result.left)), reasonCode: UNAVAILABLE }
    const outcome = result.right
    switch (outcome._tag) {
      case 'Settled':
        return { status: 200, body: wording.settled(outcome), ...(outcome.replayed ? { headers: REPLAYED_HEADERS } : {}) }
      case 'Pending':
        return { status: 202, body: wording.pending('settlement_pending', PENDING_MESSAGE, outcome), reasonCode: 'settlement_pending' }
      case 'Refused': {
        const { reasonCode, message } = explainRefusal(outcome.refusal, policy)
        return { status: 200, body: wording.refused(reasonCode, message, outcome), reasonCode }
      }
      case 'IdempotencyConflict':
        return { status: 409, body: wording.notSettled('idempotency_key_reused', idempotencyConflictMessage), reasonCode: 'idempotency_key_reused' }
    }
  },
  malformed: (endpoint, { reasonCode, message }) => ({
    status: 400,
    body: endpoint === 'verify' ? wording.invalid(reasonCode, message) : wording.notSettled(reasonCode, message),
    reasonCode,
  }),
})
