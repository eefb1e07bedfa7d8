import { discoveryPaths } from './discovery-paths.js'
import { operatorPaths } from './operator-paths.js'
import { error, json, methodNotAllowed, retryAfter } from './response-parts.js'
import { ref } from './schema-parts.js'
import { schemas } from './schemas.js'

const bearer = [{ apiKey: [] }]
const OUTCOME = 'the outcome, or the first rule the payment fails (spec, x402 v1 and x402 v2 dialects)'

const paymentResponses = (result: string, extra: Record<string, object> = {}) => ({
  '200': json(ref(result), OUTCOME),
  ...extra,
  '400': json(
    ref(result),
    'malformed body or header, naming the field; a string anywhere in the body holding U+0000 is malformed too',
  ),
  '401': json(ref(result), 'API key missing or unknown (when keys are configured)'),
  '405': methodNotAllowed,
  '413': json(ref(result), 'body over the limit (64 KiB)'),
  '415': json(ref(result), 'Content-Type is not application/json'),
  '429': { ...json(ref(result), 'rate limited'), headers: retryAfter },
  '500': json(
    ref(result),
    'unexpected error (unexpected_verify_error / unexpected_settle_error), logged with the request id',
  ),
  '503': {
    ...json(ref(result), 'chain or database unreachable before anything was broadcast: nothing happened, retry'),
    headers: retryAfter,
  },
})

/** OpenAPI 3.1 of every route and every answer, served at `/openapi.json`. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'x402 facilitator',
    version: '0.1.0',
    description: 'Verify and settle EIP-3009 stablecoin payments, exactly once. Every answer carries X-Request-Id.',
  },
  paths: {
    '/api/facilitator/verify': {
      post: {
        summary: 'Check a payment without moving funds',
        security: bearer,
        requestBody: { required: true, content: { 'application/json': { schema: ref('AnyPaymentRequest') } } },
        responses: paymentResponses('AnyVerifyResult'),
      },
    },
    '/api/facilitator/settle': {
      post: {
        summary: 'Verify, then execute the transfer on-chain, exactly once',
        security: bearer,
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'a retry with the same key and body gets the stored outcome (24 h); keys are scoped per API key, ' +
              'else per client address',
            schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('AnyPaymentRequest') } } },
        responses: paymentResponses('AnySettleResult', {
          '200': {
            ...json(ref('AnySettleResult'), OUTCOME),
            headers: {
              'Idempotency-Replayed': {
                schema: { const: 'true' },
                description: 'present on the stored outcome of an idempotent retry',
              },
              'EXTENSION-RESPONSES': {
                schema: { type: 'string' },
                description:
                  'a payment that settled now and declared its resource (bazaar), with discovery on: base64 of ' +
                  '`{"bazaar":{"status":"success"}}` or `{"bazaar":{"status":"rejected","rejectedReason":"…"}}`',
              },
            },
          },
          '202': json(
            ref('AnySettleResult'),
            'broadcast, no receipt in time (with SETTLE_WAIT_FOR=final: not final in time): settlement_pending ' +
              'with the hash; do not pay again',
          ),
          '409': json(ref('AnySettleResult'), 'Idempotency-Key already used with another body'),
        }),
      },
    },
    '/api/facilitator/supported': {
      get: {
        summary: 'Capabilities (spec fields and x402 v2 kinds/extensions/signers); cacheable 60 s',
        responses: { '200': json(ref('Capabilities'), 'capabilities'), '405': methodNotAllowed },
      },
    },
    '/api/facilitator/settlements': {
      get: {
        summary: 'A settlement by its authorization',
        security: bearer,
        parameters: [
          { name: 'payer', in: 'query', required: true, schema: ref('Address') },
          { name: 'nonce', in: 'query', required: true, schema: { type: 'string' } },
          {
            name: 'network',
            in: 'query',
            required: false,
            description: "the network's spec name or CAIP-2 id; unset: every network served",
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': json(
            ref('Settlement'),
            'the journal row; txHash and blockNumber name the transaction on the chain now, confirmations how ' +
              'deep its block is',
          ),
          '400': error('malformed query'),
          '401': error('API key missing or unknown'),
          '404': error('no such settlement'),
          '405': methodNotAllowed,
          '409': json(
            ref('AmbiguousSettlement'),
            'no network named, and the authorization is settled on several: every match, name one with network',
          ),
          '503': { ...error('journal unreachable'), headers: retryAfter },
        },
      },
    },
    '/api/facilitator/settlements/{txHash}': {
      get: {
        summary: 'A settlement by any of its transactions',
        security: bearer,
        parameters: [{ name: 'txHash', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': json(
            ref('Settlement'),
            'the journal row; txHash and blockNumber name the transaction on the chain now, confirmations how ' +
              'deep its block is',
          ),
          '400': error('malformed hash'),
          '401': error('API key missing or unknown'),
          '404': error('no such settlement'),
          '409': error('the transaction is a settler batch of several payments: look one up by payer and nonce'),
          '405': methodNotAllowed,
          '503': { ...error('journal unreachable'), headers: retryAfter },
        },
      },
    },
    ...operatorPaths,
    ...discoveryPaths,
    '/healthz': { get: { summary: 'The process answers', responses: { '200': json(ref('Health'), 'alive') } } },
    '/readyz': {
      get: {
        summary: 'Chain and database reachable, migrations applied, gas above the floor',
        responses: {
          '200': json(ref('Readiness'), 'ready'),
          '503': json(ref('Readiness'), 'not ready; `failing` names the parts'),
        },
      },
    },
    '/metrics': {
      get: {
        summary: 'Prometheus metrics',
        responses: {
          '200': { description: 'text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    '/openapi.json': {
      get: { summary: 'This document', responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1') } },
    },
  },
  components: {
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'only when API_KEYS or API_KEYS_FILE is set' },
      operatorToken: {
        type: 'http',
        scheme: 'bearer',
        description: "OPERATOR_TOKEN, for the operator's routes only; never a caller API key",
      },
    },
    schemas,
  },
} as const
