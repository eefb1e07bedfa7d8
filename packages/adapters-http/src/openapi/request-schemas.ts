import { ref, SAFE_INTEGER, DECIMAL_OR_HEX, nonEmpty } from './schema-parts.js'
import { EIP2612_INFO_FIELDS } from './permit2-schemas.js'

/** The bodies of `/verify` and `/settle`, in the spec and x402 v2 dialects (v1: x402-v1-schemas.ts), and their parts. */
export const requestSchemas = {
  Address: {
    type: 'string',
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: '0x + 40 hex; mixed case must be a valid EIP-55 checksum',
  },
  Uint256String: {
    type: 'string',
    pattern: DECIMAL_OR_HEX,
    description: 'decimal without sign, point, exponent or leading zero (or 0x hex), below 2^256',
  },
  Uint256Integer: {
    oneOf: [SAFE_INTEGER, { type: 'string', pattern: DECIMAL_OR_HEX }],
    description: 'unix seconds: a JSON safe integer, a decimal or 0x hex string, below 2^256',
  },
  Nonce: {
    oneOf: [
      SAFE_INTEGER,
      { type: 'string', pattern: '^(0|[1-9][0-9]*)$' },
      { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
    ],
    description: 'a JSON safe integer, a decimal string below 2^256, or 0x + 64 hex',
  },
  Signature: {
    type: 'string',
    pattern: '^0x([0-9a-fA-F]{2}){1,8192}$',
    description:
      'whole bytes, at most 8 KiB: 65 bytes r‖s‖v for a key, any length for a smart wallet; rule 7 checks it',
  },
  X402Version: { oneOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]+){0,2}$' }, SAFE_INTEGER] },
  Authorization: {
    type: 'object',
    required: ['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'],
    properties: {
      from: ref('Address'),
      to: ref('Address'),
      value: ref('Uint256String'),
      validAfter: ref('Uint256Integer'),
      validBefore: ref('Uint256Integer'),
      nonce: ref('Nonce'),
    },
  },
  ExactEvmPayload: {
    type: 'object',
    required: ['signature', 'authorization'],
    properties: { signature: ref('Signature'), authorization: ref('Authorization') },
  },
  PaymentPayload: {
    type: 'object',
    required: ['x402Version', 'scheme', 'network', 'payload'],
    properties: {
      x402Version: ref('X402Version'),
      scheme: nonEmpty,
      network: nonEmpty,
      payload: ref('ExactEvmPayload'),
    },
  },
  PaymentRequirements: {
    type: 'object',
    required: ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'],
    properties: {
      x402Version: ref('X402Version'),
      scheme: nonEmpty,
      network: nonEmpty,
      amount: ref('Uint256String'),
      asset: ref('Address'),
      payTo: ref('Address'),
      maxTimeoutSeconds: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
  PaymentRequest: {
    type: 'object',
    description: 'The spec dialect',
    required: ['paymentPayload', 'paymentRequirements'],
    properties: { paymentPayload: ref('PaymentPayload'), paymentRequirements: ref('PaymentRequirements') },
  },
  X402V2PaymentPayload: {
    description: 'An EIP-3009 payload, or a Permit2 one (exact with assetTransferMethod permit2, and upto)',
    oneOf: [ref('X402V2Eip3009PaymentPayload'), ref('X402V2Permit2PaymentPayload')],
  },
  X402V2Eip3009PaymentPayload: {
    type: 'object',
    required: ['x402Version', 'accepted', 'payload'],
    properties: {
      x402Version: ref('X402Version'),
      accepted: ref('PaymentRequirements'),
      payload: { allOf: [ref('ExactEvmPayload'), { not: { required: ['permit2Authorization'] } }] },
      resource: { type: 'object' },
      extensions: { type: 'object', properties: { 'payment-identifier': ref('PaymentIdentifierExtension') } },
    },
  },
  PaymentIdentifierExtension: {
    type: 'object',
    description: "x402's payment-identifier: on settle, its id is the caller's Idempotency-Key (docs/API.md, settle)",
    required: ['info'],
    properties: {
      info: {
        type: 'object',
        properties: {
          required: { type: 'boolean' },
          id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
        },
        if: { properties: { required: { const: true } }, required: ['required'] },
        then: { required: ['id'] },
      },
    },
  },
  X402V2Permit2PaymentPayload: {
    type: 'object',
    required: ['x402Version', 'accepted', 'payload'],
    properties: {
      x402Version: ref('X402Version'),
      accepted: ref('PaymentRequirements'),
      payload: ref('Permit2Payload'),
      resource: { type: 'object' },
      extensions: {
        type: 'object',
        properties: {
          'payment-identifier': ref('PaymentIdentifierExtension'),
          eip2612GasSponsoring: {
            type: 'object',
            required: ['info'],
            properties: {
              info: {
                description: 'a whole permit; an info without one (a field missing) sponsors nothing, as 2.27 reads it',
                anyOf: [ref('Eip2612GasSponsoringInfo'), { type: 'object', not: { required: EIP2612_INFO_FIELDS } }],
              },
            },
          },
        },
      },
    },
  },
  X402V2PaymentRequest: {
    type: 'object',
    description: 'The official x402 v2 dialect, told apart by `paymentPayload.accepted`',
    required: ['x402Version', 'paymentPayload', 'paymentRequirements'],
    properties: {
      x402Version: ref('X402Version'),
      paymentPayload: ref('X402V2PaymentPayload'),
      paymentRequirements: ref('PaymentRequirements'),
    },
  },
  AnyPaymentRequest: {
    anyOf: [ref('PaymentRequest'), ref('X402V1PaymentRequest'), ref('X402V2PaymentRequest')],
  },
} as const
