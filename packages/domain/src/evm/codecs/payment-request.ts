import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { PaymentRequest } from '../model/evm-payment.js'
import type { AddressChecksum } from '../ports/address-checksum.js'
import { toMalformedRequest, type MalformedRequest } from '../../codecs/decode-failure.js'
import { makeAddressCodec, Nonce, Signature } from './hex.js'
import { NonEmptyString, PositiveSafeInteger, Uint256Integer, Uint256String, X402Version } from './scalars.js'

/** The field codecs of docs/ARCHITECTURE.md §2, for any dialect built on them. */
export const makeFieldCodecs = (checksum: AddressChecksum) => {
  const Address = makeAddressCodec(checksum)
  const Authorization = t.type(
    {
      from: Address,
      to: Address,
      value: Uint256String,
      validAfter: Uint256Integer,
      validBefore: Uint256Integer,
      nonce: Nonce,
    },
    'an authorization object',
  )
  const ExactEvmPayload = t.type(
    { signature: Signature, authorization: Authorization },
    'an object with signature and authorization',
  )
  /** What both dialects require of the requirements (the version rides elsewhere). */
  const Requirements = t.type(
    {
      scheme: NonEmptyString,
      network: NonEmptyString,
      amount: Uint256String,
      asset: Address,
      payTo: Address,
      maxTimeoutSeconds: PositiveSafeInteger,
    },
    'a payment requirements object',
  )
  return { Address, Authorization, ExactEvmPayload, Requirements }
}

export type FieldCodecs = ReturnType<typeof makeFieldCodecs>

/** The spec dialect's `{ paymentPayload, paymentRequirements }`. */
export const makePaymentRequestDecoder = (checksum: AddressChecksum) => {
  const { ExactEvmPayload, Requirements } = makeFieldCodecs(checksum)
  const PaymentPayload = t.type(
    { x402Version: X402Version, scheme: NonEmptyString, network: NonEmptyString, payload: ExactEvmPayload },
    'a payment payload object',
  )
  const PaymentRequirements = t.intersection(
    [
      Requirements,
      // The spec lists it; x402 requirements carry it on the payload alone, so it may be left out.
      t.partial({ x402Version: X402Version }),
    ],
    'a payment requirements object',
  )
  const Body = t.type({ paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements }, 'a JSON object')

  return (body: unknown): E.Either<MalformedRequest, PaymentRequest> =>
    pipe(
      Body.decode(body),
      E.bimap(
        (errors) => toMalformedRequest(errors),
        ({ paymentPayload: p, paymentRequirements: r }): PaymentRequest => ({
          payload: {
            x402Version: p.x402Version,
            scheme: p.scheme,
            network: p.network,
            signature: p.payload.signature,
            authorization: p.payload.authorization,
          },
          requirements: {
            x402Version: r.x402Version ?? p.x402Version,
            scheme: r.scheme,
            network: r.network,
            amount: r.amount,
            asset: r.asset,
            payTo: r.payTo,
            maxTimeoutSeconds: r.maxTimeoutSeconds,
          },
        }),
      ),
    )
}
