import { nonEmpty, ref } from './schema-parts.js'

const V1 = { const: 1, description: 'x402 v1: the JSON integer 1' }

/**
 * x402 v1's bodies (the legacy `x402` 1.x packages): its request and its settle answer (its verify answer is x402
 * v2's, `X402V2VerifyResult`).
 */
export const x402V1Schemas = {
  X402V1PaymentRequirements: {
    type: 'object',
    required: ['scheme', 'network', 'maxAmountRequired', 'resource', 'payTo', 'maxTimeoutSeconds', 'asset'],
    properties: {
      scheme: nonEmpty,
      network: { ...nonEmpty, description: "x402 v1's name of a served network (base, base-sepolia, polygon, …)" },
      maxAmountRequired: ref('Uint256String'),
      resource: nonEmpty,
      description: { type: 'string' },
      mimeType: { type: 'string' },
      outputSchema: { type: 'object' },
      payTo: ref('Address'),
      maxTimeoutSeconds: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      asset: ref('Address'),
      extra: { type: 'object' },
    },
  },
  X402V1PaymentRequest: {
    type: 'object',
    description: 'x402 v1, told apart by `x402Version: 1` at the top or `maxAmountRequired`; EIP-3009 only',
    required: ['paymentPayload', 'paymentRequirements'],
    properties: {
      x402Version: V1,
      paymentPayload: {
        type: 'object',
        required: ['x402Version', 'scheme', 'network', 'payload'],
        properties: { x402Version: V1, scheme: nonEmpty, network: nonEmpty, payload: ref('ExactEvmPayload') },
      },
      paymentRequirements: ref('X402V1PaymentRequirements'),
    },
  },
  X402V1SettleResult: {
    type: 'object',
    required: ['success', 'transaction', 'network'],
    properties: {
      success: { type: 'boolean' },
      transaction: { type: 'string', description: 'empty when nothing was sent' },
      network: { type: 'string', description: "x402 v1's name of the network" },
      payer: ref('Address'),
      errorReason: { type: 'string' },
      errorMessage: { type: 'string' },
      replayed: { type: 'boolean' },
      settlementState: ref('SettlementState'),
      receipt: ref('SettlementReceipt'),
      requestId: { type: 'string' },
    },
  },
} as const
