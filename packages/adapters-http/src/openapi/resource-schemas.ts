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
            network: { type: 'string', description: 'CAIP-2; per network one `exact` kind, and `upto` with Permit2' },
            extra: {
              type: 'object',
              description:
                "name, version, asset: the kind's first token; assets: every token of the network (upto: those paid " +
                'through Permit2); facilitatorAddress (upto): the key a witness names, the one sender its proxy takes',
              properties: {
                name: { type: 'string' },
                version: { type: 'string' },
                asset: ref('Address'),
                facilitatorAddress: ref('Address'),
                assets: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['address', 'symbol', 'decimals', 'name', 'version', 'minAmount'],
                    properties: {
                      address: ref('Address'),
                      symbol: { type: 'string' },
                      decimals: { type: 'integer' },
                      name: { type: 'string', description: 'EIP-712 domain name' },
                      version: { type: 'string', description: 'EIP-712 domain version' },
                      minAmount: { type: 'string', description: "smallest amount settled, in the token's units" },
                      transferMethods: { type: 'array', items: { enum: ['eip3009', 'permit2'] } },
                      eip2612: { const: true, description: 'a permit of it can be sponsored (eip2612GasSponsoring)' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      extensions: { type: 'array', items: { type: 'string' } },
      signers: {
        type: 'object',
        description: '`eip155:*`: every signing account; each network served (CAIP-2): its own',
        additionalProperties: { type: 'array', items: ref('Address') },
      },
      attestation: ref('Attestation'),
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
      receipt: ref('SettlementReceipt'),
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
  },
  Error: {
    type: 'object',
    required: ['error', 'errorCode'],
    properties: { error: { type: 'string' }, errorCode: { type: 'string' }, requestId: { type: 'string' } },
  },
  AmbiguousSettlement: {
    type: 'object',
    required: ['error', 'errorCode', 'matches'],
    properties: {
      error: { type: 'string' },
      errorCode: { const: 'ambiguous_settlement' },
      requestId: { type: 'string' },
      matches: {
        type: 'array',
        items: ref('Settlement'),
        description: 'every settlement found, each with its network',
      },
    },
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
