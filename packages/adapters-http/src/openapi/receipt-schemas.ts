import { ref } from './schema-parts.js'

const FIELD = { type: 'object', required: ['name', 'type'], properties: { name: {}, type: {} } }

/** A signed settlement receipt (docs/API.md, Signed settlement receipts) and `/supported`'s attestation accounts. */
export const receiptSchemas = {
  SettlementReceipt: {
    type: 'object',
    required: ['domain', 'types', 'primaryType', 'message', 'signature'],
    description: 'EIP-712 typed data signed by /supported attestation.current; integers as decimal strings',
    properties: {
      domain: {
        type: 'object',
        required: ['name', 'version', 'chainId'],
        properties: {
          name: { const: 'x402 facilitator receipt' },
          version: { const: '1' },
          chainId: { type: 'integer' },
        },
      },
      types: { type: 'object', additionalProperties: { type: 'array', items: FIELD } },
      primaryType: { const: 'SettlementReceipt' },
      message: { type: 'object', additionalProperties: { type: 'string' } },
      signature: { type: 'string', pattern: '^0x[0-9a-f]{130}$' },
    },
  },
  Attestation: {
    type: 'object',
    required: ['current', 'retired'],
    description: 'the accounts that sign receipts (never a gas signer): the current one and earlier ones',
    properties: { current: ref('Address'), retired: { type: 'array', items: ref('Address') } },
  },
} as const
