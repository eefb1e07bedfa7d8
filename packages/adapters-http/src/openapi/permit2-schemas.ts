import { ref, nonEmpty } from './schema-parts.js'

/** The fields of a whole sponsored permit: an info lacking one of them sponsors nothing. */
export const EIP2612_INFO_FIELDS = ['from', 'asset', 'spender', 'amount', 'nonce', 'deadline', 'signature', 'version']

/** The x402 v2 Permit2 payload (`exact` with `assetTransferMethod: "permit2"`, and `upto`) and its extension. */
export const permit2Schemas = {
  Permit2Authorization: {
    type: 'object',
    required: ['from', 'permitted', 'spender', 'nonce', 'deadline', 'witness'],
    properties: {
      from: ref('Address'),
      permitted: {
        type: 'object',
        required: ['token', 'amount'],
        properties: { token: ref('Address'), amount: ref('Uint256String') },
      },
      spender: ref('Address'),
      nonce: ref('Nonce'),
      deadline: ref('Uint256String'),
      witness: {
        type: 'object',
        required: ['to', 'validAfter'],
        properties: {
          to: ref('Address'),
          validAfter: ref('Uint256String'),
          facilitator: { ...ref('Address'), description: 'upto only: the key its proxy accepts as sender' },
        },
      },
    },
  },
  Permit2Payload: {
    type: 'object',
    required: ['signature', 'permit2Authorization'],
    properties: { signature: ref('Signature'), permit2Authorization: ref('Permit2Authorization') },
  },
  Eip2612GasSponsoringInfo: {
    type: 'object',
    description: "An EIP-2612 permit of the token to Permit2, sent with the payment (x402's eip2612GasSponsoring)",
    required: EIP2612_INFO_FIELDS,
    properties: {
      from: ref('Address'),
      asset: ref('Address'),
      spender: ref('Address'),
      amount: ref('Uint256String'),
      nonce: ref('Uint256String'),
      deadline: ref('Uint256String'),
      signature: ref('Signature'),
      version: nonEmpty,
    },
  },
} as const
