import { ref } from './schema-parts.js'

const ID = { type: 'string', pattern: '^[1-9][0-9]*$' }
const TIME = { type: 'string', format: 'date-time' }
const nullable = (schema: object) => ({ oneOf: [schema, { type: 'null' }] })
const refused = (errorCode: string) => ({
  type: 'object',
  required: ['error', 'errorCode'],
  properties: { error: { type: 'string' }, errorCode: { const: errorCode }, requestId: { type: 'string' } },
})

/** The operator's look-up of webhook deliveries (docs/API.md, `GET /api/facilitator/operator/deliveries`). */
export const deliverySchemas = {
  Deliveries: {
    type: 'object',
    required: ['deliveries'],
    additionalProperties: false,
    properties: { deliveries: { type: 'array', items: ref('Delivery') } },
  },
  Delivery: {
    type: 'object',
    description: 'one event sent to one endpoint; never its secrets nor the body sent',
    required: [
      'id',
      'endpoint',
      'state',
      'attempts',
      'lastStatus',
      'lastError',
      'nextAttemptAt',
      'createdAt',
      'deliveredAt',
      'eventId',
      'kind',
      'settlementId',
    ],
    additionalProperties: false,
    properties: {
      id: { ...ID, description: 'the delivery, in the order deliveries were made (newest first here)' },
      endpoint: { type: 'string', description: 'the configured webhook URL' },
      state: { enum: ['pending', 'delivered', 'dead'] },
      attempts: { type: 'integer', minimum: 0, description: 'attempts begun, one in flight included' },
      lastStatus: {
        ...nullable({ type: 'integer' }),
        description:
          "the last ended attempt's HTTP status; null: none ended yet, or no answer (timeout, no connection)",
      },
      lastError: {
        ...nullable({ type: 'string' }),
        description: 'why the last ended attempt failed; null: none ended yet, or delivered',
      },
      nextAttemptAt: { ...TIME, description: 'when a pending delivery is next tried (as it was, once ended)' },
      createdAt: TIME,
      deliveredAt: nullable(TIME),
      eventId: { type: 'string', format: 'uuid', description: 'the `id` of the body sent, the same on every retry' },
      kind: { type: 'string', description: 'the event kind (docs/ARCHITECTURE.md §5.9), e.g. `confirmed`' },
      settlementId: { ...ID, description: 'the settlement the event is of' },
    },
  },
  InvalidQuery: refused('invalid_query'),
  OperatorUnauthorized: refused('unauthorized'),
} as const
