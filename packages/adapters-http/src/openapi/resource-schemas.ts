import { ref, CONFIRMATIONS } from './schema-parts.js'

/** The other routes' answers: `/supported`, a settlement looked up, an error, the probes. */
export const resourceSchemas = {
  Capabilities: {
    type: 'object',
    required: ['x402Version', 'facilitator', 'schemes', 'networks', 'assets', 'kinds', 'extensions', 'signers'],
    properties: {
      x402Version: { const: '2.0' },
      facilitator: ref('Address'),
      schemes: { type: 'array', items: { type: 'string' } },
      networks: { type: 'array', items: { type: 'string' } },
      assets: {
        type: 'array',
        items: {
          type: 'object',
          required: ['network', 'asset', 'address'],
          properties: { network: { type: 'string' }, asset: { type: 'string' }, address: ref('Address') },
        },
      },
      kinds: {
        type: 'array',
        items: {
          type: 'object',
          required: ['x402Version', 'scheme', 'network'],
          properties: {
            x402Version: { type: 'integer' },
            scheme: { type: 'string' },
            network: { type: 'string' },
            extra: { type: 'object' },
          },
        },
      },
      extensions: { type: 'array', items: { type: 'string' } },
      signers: { type: 'object', additionalProperties: { type: 'array', items: ref('Address') } },
    },
  },
  Settlement: {
    type: 'object',
    required: [
      'state',
      'payer',
      'payee',
      'value',
      'asset',
      'network',
      'nonce',
      'txHash',
      'blockNumber',
      'confirmations',
      'attempts',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      state: ref('SettlementState'),
      payer: ref('Address'),
      payee: ref('Address'),
      value: { type: 'string', pattern: '^(0|[1-9][0-9]*)$' },
      asset: ref('Address'),
      network: { type: 'string' },
      nonce: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
      txHash: { type: ['string', 'null'] },
      blockNumber: { type: ['integer', 'null'] },
      confirmations: {
        ...CONFIRMATIONS,
        type: ['integer', 'null'],
        description: `${CONFIRMATIONS.description}; null without a block, or before the first head is read`,
      },
      attempts: { type: 'array', items: { type: 'string' } },
      error: { type: 'string' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
  },
  Error: {
    type: 'object',
    required: ['error', 'errorCode'],
    properties: { error: { type: 'string' }, errorCode: { type: 'string' }, requestId: { type: 'string' } },
  },
  Health: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
  Readiness: {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { enum: ['ready', 'not_ready'] },
      failing: { type: 'array', items: { type: 'string' } },
      ageSeconds: {
        type: ['number', 'null'],
        description: 'how many seconds ago the checks were read (in the background, not per request); null: not yet',
      },
      checks: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['ok', 'detail'],
          properties: { ok: { type: 'boolean' }, detail: { type: 'string' } },
        },
      },
    },
  },
} as const
