import { ref } from './schema-parts.js'

/** Bazaar discovery's answers, as @x402/extensions 2.27's `DiscoveryResource` and its responses read them. */
export const discoverySchemas = {
  DiscoveryResource: {
    type: 'object',
    required: ['resource', 'type', 'x402Version', 'accepts', 'lastUpdated', 'extensions', 'metadata'],
    properties: {
      resource: { type: 'string', description: 'origin and path (or route template), without the query' },
      type: { type: 'string', description: '`http` or `mcp`' },
      x402Version: { type: 'integer', description: 'the version of the payment that catalogued it' },
      accepts: {
        type: 'array',
        items: { type: 'object' },
        description: 'the requirements its latest payment met, as the resource server stated them',
      },
      lastUpdated: { type: 'string', format: 'date-time', description: 'when a payment for it last settled' },
      description: { type: 'string' },
      mimeType: { type: 'string' },
      serviceName: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      iconUrl: { type: 'string' },
      extensions: {
        type: 'object',
        description: '`bazaar`: the declared `info` and `schema` (v1: `info` read from outputSchema)',
      },
      metadata: {
        type: 'object',
        properties: { method: { type: 'string' }, toolName: { type: 'string' } },
      },
    },
  },
  DiscoveryResources: {
    type: 'object',
    required: ['x402Version', 'items', 'pagination'],
    properties: {
      x402Version: { const: 2 },
      items: { type: 'array', items: ref('DiscoveryResource') },
      pagination: {
        type: 'object',
        required: ['limit', 'offset', 'total'],
        properties: {
          limit: { type: 'integer' },
          offset: { type: 'integer' },
          total: { type: 'integer', description: 'entries matching, over every page' },
        },
      },
    },
  },
  DiscoverySearch: {
    type: 'object',
    required: ['x402Version', 'resources', 'partialResults', 'pagination'],
    properties: {
      x402Version: { const: 2 },
      resources: { type: 'array', items: ref('DiscoveryResource') },
      partialResults: { type: 'boolean', description: 'more entries match than this page holds' },
      pagination: {
        type: 'object',
        required: ['limit', 'cursor'],
        properties: { limit: { type: 'integer' }, cursor: { type: ['string', 'null'] } },
      },
    },
  },
  HideResource: {
    type: 'object',
    required: ['resource'],
    properties: {
      resource: { type: 'string', minLength: 1, maxLength: 2048 },
      operation: { type: 'string', maxLength: 128, description: 'one method or tool; unset: every one' },
      payTo: { type: 'string', maxLength: 128, description: "one payee's entries; unset: every payee's" },
      hidden: { type: 'boolean', default: true },
    },
  },
  HiddenResource: {
    type: 'object',
    required: ['resource', 'hidden', 'entries'],
    properties: {
      resource: { type: 'string' },
      operation: { type: 'string' },
      payTo: { type: 'string' },
      hidden: { type: 'boolean' },
      entries: { type: 'integer', minimum: 0 },
      requestId: { type: 'string' },
    },
  },
} as const
