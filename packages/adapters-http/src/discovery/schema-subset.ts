type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Keywords whose value is data, never a schema: kept as written. */
const DATA = new Set(['enum', 'const', 'examples', 'example', 'default', 'required', 'type'])
/** Keywords that bound a value or annotate it: kept as written. */
const PLAIN = new Set([
  '$schema',
  '$comment',
  'title',
  'description',
  'deprecated',
  'readOnly',
  'writeOnly',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
])
/** Keywords dropped before checking: they would run a stranger's regular expression, or need formats not loaded. */
const DROPPED = new Set(['pattern', 'patternProperties', 'format'])

/**
 * The part of JSON Schema a declaration's `schema` may use, as a copy to check `info` against. The schema is a
 * payer's bytes compiled and run on the event loop (@x402/extensions compiles it with ajv, `allErrors`): references
 * and combinators (`$ref`, `anyOf`, `not`, …) let a schema of a few hundred bytes take seconds or exhaust the heap
 * (2^n paths), and a regular expression can backtrack for years. What is left (properties, items, bounds, enums) is
 * checked in time linear in `info`. Official declarations (`declareDiscoveryExtension`) use nothing else.
 */
export const schemaSubset = (schema: unknown, path = 'schema'): { schema: Json } | { refused: string } => {
  if (!isObject(schema)) return { refused: `${path}: a JSON Schema object` }
  const copy: Json = {}
  for (const [keyword, value] of Object.entries(schema)) {
    if (DROPPED.has(keyword)) continue
    if (DATA.has(keyword) || PLAIN.has(keyword)) copy[keyword] = value
    else if (keyword === 'properties') {
      if (!isObject(value)) return { refused: `${path}.properties: an object of schemas` }
      const properties: Json = {}
      for (const [name, inner] of Object.entries(value)) {
        const checked = schemaSubset(inner, `${path}.properties.${name}`)
        if ('refused' in checked) return checked
        properties[name] = checked.schema
      }
      copy.properties = properties
    } else if (keyword === 'items' || keyword === 'additionalProperties') {
      if (typeof value === 'boolean') copy[keyword] = value
      else {
        const checked = schemaSubset(value, `${path}.${keyword}`)
        if ('refused' in checked) return checked
        copy[keyword] = checked.schema
      }
    } else
      return {
        refused:
          `${path}: the keyword ${keyword.slice(0, 32)} is not catalogued (properties, items, bounds and enums are; ` +
          'references and combinators could cost this service unbounded time)',
      }
  }
  return { schema: copy }
}
