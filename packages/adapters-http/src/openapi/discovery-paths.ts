import { ref } from './schema-parts.js'
import { error, json, methodNotAllowed, retryAfter } from './response-parts.js'

const query = (name: string, description: string, schema: object = { type: 'string', maxLength: 128 }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
})

const filters = [
  query('type', '`http` or `mcp`'),
  query('payTo', 'the payee (an EVM address in any case, a Solana one as written)'),
  query('scheme', '`exact` or `upto`'),
  query('network', "a served network's CAIP-2 id or spec name"),
  query('asset', 'the token'),
  query('extensions', 'an extension every listed entry carries (`bazaar`: all; another: none)'),
  query('limit', 'entries per page', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
]

const failures = {
  '400': json(ref('InvalidQuery'), 'a parameter malformed, out of bounds or given twice, named in `error`'),
  '404': json(ref('InvalidQuery'), 'discovery is off (DISCOVERY=off): `discovery_off`'),
  '405': methodNotAllowed,
  '429': error('over RATE_LIMIT'),
  '503': { ...error('the catalog out of reach (service_unavailable)'), headers: retryAfter },
}

/**
 * Bazaar discovery (routes/discovery-routes.ts): listed always, as the document is one for every configuration; the
 * catalog answers only with DISCOVERY on.
 */
export const discoveryPaths = {
  '/api/facilitator/discovery/resources': {
    get: {
      summary: 'The catalog of resources paid for through this facilitator (Bazaar), newest payment first',
      description:
        'Public and cacheable (`Cache-Control: public, max-age=30`), rate-limited per client; @x402/extensions ' +
        "2.27's `withBazaar(client).extensions.bazaar.listResources()` reads it.",
      parameters: [...filters, query('offset', 'entries skipped', { type: 'integer', minimum: 0, maximum: 10000 })],
      responses: { '200': json(ref('DiscoveryResources'), 'a page of the catalog'), ...failures },
    },
  },
  '/api/facilitator/discovery/search': {
    get: {
      summary: 'Full-text search of the catalog: descriptions and resource URLs',
      parameters: [
        { ...query('query', 'the words to find', { type: 'string', minLength: 1, maxLength: 200 }), required: true },
        ...filters,
        query('cursor', "the previous answer's `pagination.cursor`", { type: 'string', pattern: '^[0-9]{1,6}$' }),
      ],
      responses: { '200': json(ref('DiscoverySearch'), 'the matching entries, newest payment first'), ...failures },
    },
  },
  '/api/facilitator/operator/discovery/hide': {
    post: {
      summary: "Hides a resource's catalog entries (or shows them again)",
      description: 'Served only when OPERATOR_TOKEN is set; needs `Authorization: Bearer <OPERATOR_TOKEN>`.',
      security: [{ operatorToken: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: ref('HideResource') } } },
      responses: {
        '200': json(ref('HiddenResource'), 'how many entries the resource (or its operation) has'),
        '400': error('resource, operation or hidden malformed (invalid_payload)'),
        '401': json(ref('OperatorUnauthorized'), 'no token, or not the operator token'),
        '404': error('OPERATOR_TOKEN unset (not_found), or discovery off (discovery_off)'),
        '405': methodNotAllowed,
        '503': { ...error('the catalog out of reach (service_unavailable)'), headers: retryAfter },
      },
    },
  },
} as const
