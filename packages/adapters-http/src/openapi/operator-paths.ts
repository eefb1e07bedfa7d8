import { ref } from './schema-parts.js'
import { error, json, methodNotAllowed, retryAfter } from './response-parts.js'

/**
 * `GET /api/facilitator/operator/deliveries` (routes/operator-routes.ts): listed always, as the document is one for
 * every configuration, and served only when OPERATOR_TOKEN is set (and the store keeps deliveries, as Postgres does).
 */
export const operatorPaths = {
  '/api/facilitator/operator/deliveries': {
    get: {
      summary: "The operator's look-up of webhook deliveries, newest first",
      description:
        'Served only when OPERATOR_TOKEN is set (the store on Postgres); otherwise 404 not_found. Needs ' +
        '`Authorization: Bearer <OPERATOR_TOKEN>`: a caller API key is refused (401). Each query parameter is ' +
        'optional and at most once (any query parameter given twice is 400); the token is checked before the query.',
      security: [{ operatorToken: [] }],
      parameters: [
        {
          name: 'endpoint',
          in: 'query',
          required: false,
          description: 'a configured webhook URL, matched exactly; unset: every endpoint',
          schema: { type: 'string' },
        },
        {
          name: 'state',
          in: 'query',
          required: false,
          description: 'unset: every state',
          schema: { enum: ['pending', 'delivered', 'dead'] },
        },
        {
          name: 'settlementId',
          in: 'query',
          required: false,
          description: "a settlement's id (webhook bodies' `settlement.id`); unset: every settlement",
          schema: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' },
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: 'how many deliveries at most, written in decimal digits (at most 4)',
          schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
        },
      ],
      responses: {
        '200': json(ref('Deliveries'), 'the deliveries that match, newest first (an empty list when none)'),
        '400': json(ref('InvalidQuery'), 'a query parameter malformed, out of bounds or given twice, named in `error`'),
        '401': {
          ...json(ref('OperatorUnauthorized'), 'no token, or not the operator token (a caller API key included)'),
          headers: { 'WWW-Authenticate': { schema: { const: 'Bearer' } } },
        },
        '404': error('not served: OPERATOR_TOKEN unset (not_found)'),
        '405': methodNotAllowed,
        '503': { ...error('the database out of reach (service_unavailable)'), headers: retryAfter },
      },
    },
  },
} as const
