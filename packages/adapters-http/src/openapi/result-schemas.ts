import { ref, SAFE_INTEGER, CONFIRMATIONS } from './schema-parts.js'

/** What `/verify` and `/settle` answer, in the spec and x402 v2 dialects (v1: x402-v1-schemas.ts). */
export const resultSchemas = {
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
    description: 'x402 v2 and v1 alike',
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
    enum: ['claimed', 'submitted', 'confirmed', 'final', 'reverted', 'released', 'cancelled', 'unsettleable', 'waived'],
    description:
      'claimed → submitted → confirmed (first receipt) → final (its block CONFIRMATIONS deep); reverted; ' +
      'released (nothing of it can be mined, the authorization may be settled again); cancelled (the payer ' +
      'cancelled the authorization before ours was mined); unsettleable (sent back by a reorg, it can no ' +
      'longer be mined: `error` says why). A reorg sends a confirmed, final, reverted or cancelled row back to ' +
      'submitted, and it is finished again.',
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
      receipt: ref('SettlementReceipt'),
      requestId: { type: 'string' },
    },
  },
  X402V2SettleResult: {
    type: 'object',
    required: ['success', 'transaction', 'network'],
    properties: {
      success: { type: 'boolean' },
      transaction: { type: 'string', description: 'empty when nothing was sent (an upto settle of 0, a refusal)' },
      network: { type: 'string' },
      payer: ref('Address'),
      amount: { type: 'string', description: 'a Permit2 settle: what it moved (upto: what it charged, "0" waived)' },
      errorReason: { type: 'string' },
      errorMessage: { type: 'string' },
      replayed: { type: 'boolean', description: 'the stored outcome of an idempotent retry (also under extra)' },
      settlementState: {
        ...ref('SettlementState'),
        description: 'on a refusal that names an earlier settlement: the state of its journal row',
      },
      extra: { type: 'object' },
      extensions: {
        type: 'object',
        properties: { 'facilitator-receipt': ref('SettlementReceipt') },
      },
      requestId: { type: 'string' },
    },
  },
  AnySettleResult: { anyOf: [ref('SettleResult'), ref('X402V1SettleResult'), ref('X402V2SettleResult')] },
} as const
