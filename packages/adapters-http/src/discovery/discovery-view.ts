import type { CatalogEntry } from '@x402-facilitator/domain'

/**
 * One catalog entry as @x402/extensions 2.27's `DiscoveryResource` reads it: the resource, its type and version, what
 * it accepts (the requirements its payment met), when it was last paid for, its description and the service's metadata,
 * and the declared extensions (`bazaar`: `info` and `schema`); `metadata` names the method or tool.
 */
export const discoveryResourceOf = (entry: CatalogEntry) => ({
  resource: entry.resource,
  type: entry.type,
  x402Version: entry.x402Version,
  accepts: [entry.accepts],
  lastUpdated: entry.lastSettledAt.toISOString(),
  ...(entry.description === undefined ? {} : { description: entry.description }),
  ...(entry.mimeType === undefined ? {} : { mimeType: entry.mimeType }),
  ...(entry.serviceName === undefined ? {} : { serviceName: entry.serviceName }),
  ...(entry.tags === undefined ? {} : { tags: entry.tags }),
  ...(entry.iconUrl === undefined ? {} : { iconUrl: entry.iconUrl }),
  extensions: entry.extensions,
  metadata: entry.type === 'mcp' ? { toolName: entry.operation } : { method: entry.operation },
})
