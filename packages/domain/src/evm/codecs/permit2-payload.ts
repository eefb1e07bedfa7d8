import * as t from 'io-ts'
import type { AddressChecksum } from '../ports/address-checksum.js'
import { makeAddressCodec, Nonce, Signature } from './hex.js'
import { NonEmptyString, Uint256String } from './scalars.js'

/**
 * The x402 v2 Permit2 payload (`exact` with `assetTransferMethod: "permit2"`, and `upto`), as @x402/evm 2.27 makes it:
 * `{ signature, permit2Authorization }`, every number a decimal string; and the `eip2612GasSponsoring` extension.
 */
export const makePermit2Codecs = (checksum: AddressChecksum) => {
  const Address = makeAddressCodec(checksum)
  const Permit2Authorization = t.type(
    {
      from: Address,
      permitted: t.type({ token: Address, amount: Uint256String }, 'an object with token and amount'),
      spender: Address,
      nonce: Nonce,
      deadline: Uint256String,
      witness: t.intersection(
        [t.type({ to: Address, validAfter: Uint256String }), t.partial({ facilitator: Address })],
        'an object with to and validAfter (and facilitator for upto)',
      ),
    },
    'a permit2Authorization object',
  )
  const Permit2Payload = t.type(
    { signature: Signature, permit2Authorization: Permit2Authorization },
    'an object with signature and permit2Authorization',
  )
  const SponsoredPermit = t.type(
    {
      from: Address,
      asset: Address,
      spender: Address,
      amount: Uint256String,
      nonce: Uint256String,
      deadline: Uint256String,
      signature: Signature,
      version: NonEmptyString,
    },
    'an eip2612GasSponsoring info object',
  )
  /**
   * The extension without a whole permit (a field missing): nothing sponsored, as @x402/evm 2.27's facilitator
   * reads it (its client echoes the 402's declaration so for a payer whose allowance is enough). A whole permit must
   * be well-formed.
   */
  const permitFields = Object.keys(SponsoredPermit.props)
  const NoPermit = new t.Type<undefined, unknown, unknown>(
    'an eip2612GasSponsoring info without a permit',
    (u): u is undefined => u === undefined,
    (u, c) =>
      typeof u === 'object' && u !== null && permitFields.some((f) => !(f in u))
        ? t.success(undefined)
        : t.failure(u, c),
    () => undefined,
  )
  /** Other extensions pass unread. */
  const Extensions = t.partial(
    { eip2612GasSponsoring: t.type({ info: t.union([SponsoredPermit, NoPermit]) }) },
    'an extensions object',
  )
  return { Permit2Authorization, Permit2Payload, SponsoredPermit, Extensions }
}

/** The x402 v2 payload's own test (as @x402/evm's `isPermit2Payload`): which codec a body's payload is read with. */
export const hasPermit2Authorization = (payload: unknown): boolean =>
  typeof payload === 'object' && payload !== null && 'permit2Authorization' in payload
