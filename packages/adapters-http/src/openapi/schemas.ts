/**
 * JSON Schemas (2020-12) of every body, written beside the io-ts codecs and checked against them by the tests:
 * a corpus of bodies must be accepted or refused alike by both. Two checks JSON Schema cannot express stay the
 * codecs' alone and are said in the descriptions: the EIP-55 checksum of mixed-case addresses, and the 2^256 bound.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const SAFE_INTEGER = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }
const CONFIRMATIONS = {
  type: 'integer',
  minimum: 0,
  description:
    "blocks on top of the settlement's block at the chain head the facilitator last saw; final at CONFIRMATIONS",
}
const DECIMAL_OR_HEX = '^(0|[1-9][0-9]*|0x[0-9a-fA-F]+)$'
const nonEmpty = { type: 'string', minLength: 1 }

export const schemas = {
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
    type: 'object',
    required: ['x402Version', 'accepted', 'payload'],
    properties: {
      x402Version: ref('X402Version'),
      accepted: ref('PaymentRequirements'),
      payload: ref('ExactEvmPayload'),
      resource: { type: 'object' },
      extensions: { type: 'object' },
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
  AnyPaymentRequest: { anyOf: [ref('PaymentRequest'), ref('X402V2PaymentRequest')] },

  VerifyResult: {
    type: 'object',
    required: ['valid'],
    properties: {
      valid: { type: 'boolean' },
      invalidReason: { type: 'string' },
      reasonCode: { type: 'string' },
      payer: ref('Address'),
      requestId: { type: 'string' },
    },
  },
  X402V2VerifyResult: {
    type: 'object',
    required: ['isValid'],
    properties: {
      isValid: { type: 'boolean' },
      invalidReason: { type: 'string' },
      invalidMessage: { type: 'string' },
      payer: ref('Address'),
      requestId: { type: 'string' },
    },
  },
  AnyVerifyResult: { anyOf: [ref('VerifyResult'), ref('X402V2VerifyResult')] },
  SettlementState: {
    enum: ['claimed', 'submitted', 'confirmed', 'final', 'reverted', 'released', 'cancelled', 'unsettleable'],
    description:
      'claimed → submitted → confirmed (first receipt) → final (its block CONFIRMATIONS deep); reverted; released (nothing of it can be mined, the authorization may be settled again); cancelled (the payer cancelled the authorization before ours was mined); unsettleable (sent back by a reorg, it can no longer be mined: `error` says why). A reorg sends a confirmed, final, reverted or cancelled row back to submitted, and it is finished again.',
  },
  SettleResult: {
    type: 'object',
    required: ['success'],
    properties: {
      success: { type: 'boolean' },
      txHash: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
      blockNumber: SAFE_INTEGER,
      confirmations: CONFIRMATIONS,
      payer: ref('Address'),
      replayed: { type: 'boolean' },
      error: { type: 'string' },
      errorCode: { type: 'string' },
      settlementState: ref('SettlementState'),
      requestId: { type: 'string' },
    },
  },
  X402V2SettleResult: {
    type: 'object',
    required: ['success', 'transaction', 'network'],
    properties: {
      success: { type: 'boolean' },
      transaction: { type: 'string' },
      network: { type: 'string' },
      payer: ref('Address'),
      errorReason: { type: 'string' },
      errorMessage: { type: 'string' },
      replayed: { type: 'boolean', description: 'the stored outcome of an idempotent retry (also under extra)' },
      settlementState: {
        ...ref('SettlementState'),
        description: 'on a refusal that names an earlier settlement: the state of its journal row',
      },
      extra: { type: 'object' },
      requestId: { type: 'string' },
    },
  },
  AnySettleResult: { anyOf: [ref('SettleResult'), ref('X402V2SettleResult')] },
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
