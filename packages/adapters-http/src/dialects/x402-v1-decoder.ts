import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import {
  makeFieldCodecs,
  NonEmptyString,
  PositiveSafeInteger,
  SUPPORTED_MAJOR_VERSION,
  toMalformedRequest,
  Uint256String,
  type AddressChecksum,
  type MalformedRequest,
  type PaymentRequest,
} from '@x402-facilitator/domain'
import { decodingRequestOnly, type RequestDecoder } from './dialect.js'
import type { V1Networks } from './x402-v1-networks.js'

const V1 = t.literal(1, 'the x402 version 1 (a JSON integer)')

/**
 * x402 v1's body, as the legacy `x402` 1.x facilitator client sends it: `{ x402Version: 1, paymentPayload: {
 * x402Version: 1, scheme, network, payload: { signature, authorization } }, paymentRequirements: { scheme, network,
 * maxAmountRequired, resource, description, mimeType, outputSchema?, payTo, maxTimeoutSeconds, asset, extra? } }`
 * (coinbase/x402 `specs/x402-specification-v1.md`). v1 pays by EIP-3009 alone.
 */
const makeV1Body = (checksum: AddressChecksum) => {
  const { Address, ExactEvmPayload } = makeFieldCodecs(checksum)
  const Requirements = t.intersection(
    [
      t.type({
        scheme: NonEmptyString,
        network: NonEmptyString,
        maxAmountRequired: Uint256String,
        resource: NonEmptyString,
        payTo: Address,
        maxTimeoutSeconds: PositiveSafeInteger,
        asset: Address,
      }),
      t.partial({ description: t.string, mimeType: t.string, outputSchema: t.UnknownRecord, extra: t.UnknownRecord }),
    ],
    'a payment requirements object',
  )
  return t.intersection(
    [
      t.type({
        paymentPayload: t.type(
          { x402Version: V1, scheme: NonEmptyString, network: NonEmptyString, payload: ExactEvmPayload },
          'a payment payload object',
        ),
        paymentRequirements: Requirements,
      }),
      t.partial({ x402Version: V1 }),
    ],
    'a JSON object',
  )
}

/**
 * A v1 network name onto the served network it denotes (the rules speak its spec name). A name x402 v1 does not list,
 * or one whose chain is not served, is refused here, naming what v1 may pay on: passed on, it could meet a served
 * network's spec name that denotes another chain.
 */
const readNetwork = (v1: V1Networks, field: string, name: string): E.Either<MalformedRequest, string> => {
  const served = v1.servedName(name)
  if (served !== undefined) return E.right(served)
  const offered =
    v1.served.length === 0
      ? 'no network served here has an x402 v1 name: pay with x402 v2'
      : `over x402 v1 this facilitator serves ${v1.served.map((n) => `"${n}"`).join(', ')}`
  const what = v1.isV1Name(name) ? 'is not served here' : 'is not an x402 v1 network name'
  return E.left({
    _tag: 'MalformedRequest',
    reasonCode: 'invalid_network',
    field,
    message: `${field}: "${name}" ${what}; ${offered}`,
  })
}

/**
 * The v1 body read onto the core's EIP-3009 payment. x402 v1 and v2 carry the same payment (one `exact`
 * transferWithAuthorization); this decoder checks v1's version on the wire and hands the core the payment under the
 * version its rules judge, so one authorization is one payment whichever dialect carries it.
 */
export const makeX402V1Decoder = (checksum: AddressChecksum, v1: V1Networks): RequestDecoder => {
  const Body = makeV1Body(checksum)
  return decodingRequestOnly((body): E.Either<MalformedRequest, PaymentRequest> => {
    const decoded = Body.decode(body)
    if (E.isLeft(decoded)) return E.left(toMalformedRequest(decoded.left))
    const { paymentPayload: p, paymentRequirements: r } = decoded.right
    const payloadNetwork = readNetwork(v1, 'paymentPayload.network', p.network)
    if (E.isLeft(payloadNetwork)) return payloadNetwork
    const network = readNetwork(v1, 'paymentRequirements.network', r.network)
    if (E.isLeft(network)) return network
    return E.right({
      payload: {
        x402Version: SUPPORTED_MAJOR_VERSION,
        scheme: p.scheme,
        network: payloadNetwork.right,
        signature: p.payload.signature,
        authorization: p.payload.authorization,
      },
      requirements: {
        x402Version: SUPPORTED_MAJOR_VERSION,
        scheme: r.scheme,
        network: network.right,
        amount: r.maxAmountRequired,
        asset: r.asset,
        payTo: r.payTo,
        maxTimeoutSeconds: r.maxTimeoutSeconds,
      },
    })
  })
}
