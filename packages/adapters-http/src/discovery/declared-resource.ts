import { DECLARATION_LIMITS, type ResourceDeclaration } from '@x402-facilitator/domain'
import {
  extractDiscoveryInfoV1,
  isValidRouteTemplate,
  sanitizeResourceServiceMetadata,
  validateDiscoveryExtension,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar'
import { schemaSubset } from './schema-subset.js'

/** What a settle body declares for discovery: nothing, a declaration, or why it cannot be read. */
export type DeclarationReading =
  | { readonly _tag: 'None' }
  | { readonly _tag: 'Declared'; readonly declaration: ResourceDeclaration }
  | { readonly _tag: 'Unreadable'; readonly reason: string }

const NONE: DeclarationReading = { _tag: 'None' }
const unreadable = (reason: string): DeclarationReading => ({ _tag: 'Unreadable', reason })
const MAX_DEPTH = 32

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** How deep a value nests, counted without recursion (a body may nest thousands deep); past `MAX_DEPTH` it stops. */
const tooDeep = (value: unknown): boolean => {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > MAX_DEPTH) return true
    if (typeof next.value === 'object' && next.value !== null)
      for (const inner of Object.values(next.value)) pending.push({ value: inner, depth: next.depth + 1 })
  }
  return false
}

/** The URL a declaration is catalogued under: its origin and path, or its route template. */
const canonicalUrl = (url: string, routeTemplate: unknown): string | undefined => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${isValidRouteTemplate(text(routeTemplate)) ? (routeTemplate as string) : parsed.pathname}`
  } catch {
    return undefined
  }
}

const operationOf = (info: Json): { type: string; operation: string } | undefined => {
  const input = info.input
  if (!isObject(input)) return undefined
  const type = text(input.type)
  const operation = type === 'mcp' ? (text(input.toolName) ?? text(input.tool)) : text(input.method)
  return type === undefined || operation === undefined ? undefined : { type, operation }
}

/**
 * x402 v2's `bazaar` extension (x402's `specs/extensions/bazaar.md`): `paymentPayload.extensions.bazaar` (`info`
 * checked by @x402/extensions against its `schema`, of which `schemaSubset` is used; `routeTemplate`) and
 * `paymentPayload.resource` (the URL, its description and MIME type, the service's name, tags and icon as
 * @x402/extensions sanitizes them).
 */
export const declarationOfV2 = (body: unknown): DeclarationReading => {
  if (!isObject(body) || !isObject(body.paymentPayload)) return NONE
  const { extensions, resource } = body.paymentPayload
  const bazaar = isObject(extensions) ? extensions.bazaar : undefined
  if (bazaar === undefined) return NONE
  if (!isObject(bazaar) || !isObject(bazaar.info) || !isObject(bazaar.schema))
    return unreadable('extensions.bazaar: an object with info and schema')
  // Bounded before anything compiles it (the depth first: it is counted without recursion).
  if (tooDeep(bazaar)) return unreadable(`extensions.bazaar: nested deeper than ${MAX_DEPTH} levels`)
  if (Buffer.byteLength(JSON.stringify(bazaar)) > DECLARATION_LIMITS.extensionsBytes)
    return unreadable(`extensions.bazaar: at most ${DECLARATION_LIMITS.extensionsBytes} bytes of JSON`)
  const subset = schemaSubset(bazaar.schema, 'extensions.bazaar.schema')
  if ('refused' in subset) return unreadable(subset.refused)
  const checked = validateDiscoveryExtension({
    info: bazaar.info,
    schema: subset.schema,
  } as unknown as DiscoveryExtension)
  if (!checked.valid)
    return unreadable(
      `extensions.bazaar.info does not match its schema: ${(checked.errors ?? []).slice(0, 3).join('; ')}`,
    )
  const operation = operationOf(bazaar.info)
  if (operation === undefined) return unreadable('extensions.bazaar.info.input: a type and its method or tool')
  const url = isObject(resource) ? text(resource.url) : undefined
  const canonical = url === undefined ? undefined : canonicalUrl(url, bazaar.routeTemplate)
  if (canonical === undefined) return unreadable('paymentPayload.resource.url: the URL of the resource paid for')
  const described = resource as Json
  const declaration: ResourceDeclaration = {
    resource: canonical,
    ...operation,
    x402Version: 2,
    ...optional('description', text(described.description)),
    ...optional('mimeType', text(described.mimeType)),
    ...sanitizeResourceServiceMetadata(described as unknown as Parameters<typeof sanitizeResourceServiceMetadata>[0]),
    accepts: isObject(body.paymentRequirements) ? body.paymentRequirements : {},
    extensions: { bazaar },
  }
  return { _tag: 'Declared', declaration }
}

/**
 * x402 v1's declaration: the requirements' `outputSchema` (its `input` discoverable unless it says not), read onto
 * v2's `info` by @x402/extensions; `resource`, `description` and `mimeType` from the requirements. v1 has no schema.
 */
export const declarationOfV1 = (body: unknown): DeclarationReading => {
  if (!isObject(body) || !isObject(body.paymentRequirements)) return NONE
  const { outputSchema, ...accepts } = body.paymentRequirements
  if (outputSchema === undefined) return NONE
  if (tooDeep(outputSchema))
    return unreadable(`paymentRequirements.outputSchema: nested deeper than ${MAX_DEPTH} levels`)
  let info: Json | null
  try {
    info = extractDiscoveryInfoV1(
      body.paymentRequirements as Parameters<typeof extractDiscoveryInfoV1>[0],
    ) as Json | null
  } catch {
    return unreadable('paymentRequirements.outputSchema: not a v1 discovery declaration')
  }
  if (info === null) return NONE
  const operation = operationOf(info)
  const canonical = canonicalUrl(text(accepts.resource) ?? '', undefined)
  if (operation === undefined) return unreadable('paymentRequirements.outputSchema.input: a method')
  if (canonical === undefined) return unreadable('paymentRequirements.resource: the URL of the resource paid for')
  const declaration: ResourceDeclaration = {
    resource: canonical,
    ...operation,
    x402Version: 1,
    ...optional('description', text(accepts.description)),
    ...optional('mimeType', text(accepts.mimeType)),
    accepts,
    extensions: { bazaar: { info } },
  }
  return { _tag: 'Declared', declaration }
}

/** An optional field, present only when it has a non-empty value. */
const optional = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
  (value === undefined || value === '' ? {} : { [key]: value }) as { [P in K]?: string }
