import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { Address, PaymentRequest } from '../model/payment.js'
import { isPermit2Request, type AnyPaymentRequest } from '../model/permit2-payment.js'
import { SUPPORTED_MAJOR_VERSION } from './request-rules.js'

/** A request rule 2c refused: who pays, and why. */
export interface UnservedTransfer {
  readonly payer: Address
  readonly failure: VerifyFailure
}

/**
 * Rule 2c (docs/ARCHITECTURE.md §3): the payment's transfer is one this facilitator settles, an EIP-3009
 * authorization; the request goes on to rules 1–10 as that. A Permit2 payment (x402 v2) decodes and is answered here,
 * before anything is read or claimed: `upto` as an unsupported scheme, Permit2 `exact` as an unsupported asset
 * transfer method. Rule 1's verdict and another unknown scheme's come first, as rules 1 and 2a would give them.
 */
export const transferIsServed = (request: AnyPaymentRequest): E.Either<UnservedTransfer, PaymentRequest> => {
  if (!isPermit2Request(request)) return E.right(request)
  const { payload, requirements } = request
  const refuse = (failure: VerifyFailure) => E.left({ payer: payload.permit2Authorization.from, failure })
  const version = [payload.x402Version, requirements.x402Version].find((v) => v !== SUPPORTED_MAJOR_VERSION)
  if (version !== undefined) return refuse({ _tag: 'UnsupportedVersion', version })
  const schemes = [payload.scheme, requirements.scheme]
  const unknown = schemes.find((scheme) => scheme !== 'exact' && scheme !== 'upto')
  if (unknown !== undefined) return refuse({ _tag: 'UnsupportedScheme', scheme: unknown })
  if (schemes.includes('upto')) return refuse({ _tag: 'UnsupportedScheme', scheme: 'upto' })
  return refuse({ _tag: 'UnsupportedTransferMethod', method: 'permit2' })
}
