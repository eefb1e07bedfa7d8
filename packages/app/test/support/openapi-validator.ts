import { openApiDocument } from '@x402-facilitator/adapters-http'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// A CommonJS module whose function is also its `default`.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default

type Operation = {
  parameters?: ReadonlyArray<{ name: string; in: string; schema: Record<string, unknown> }>
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>
}
type Doc = { paths: Record<string, Record<string, Operation>> }

/** Validates real answers against the served OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 says). */
export const makeOpenApiValidator = (document: unknown = openApiDocument) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema({ $id: 'openapi', components: (document as { components: unknown }).components })
  const resolve = (schema: Record<string, unknown>) =>
    typeof schema.$ref === 'string' ? { $ref: `openapi${schema.$ref}` } : schema
  const doc = document as Doc
  return {
    /** Throws with ajv's errors when `body` is not what the document promises for this route and status. */
    check: (path: string, method: string, status: number, body: unknown) => {
      const operation = doc.paths[path]?.[method]
      if (!operation && status === 405 && doc.paths[path]) {
        // A method the path does not offer: the generic error body.
        const validate = ajv.compile({ $ref: 'openapi#/components/schemas/Error' })
        if (!validate(body)) throw new Error(`${method.toUpperCase()} ${path} 405: ${ajv.errorsText(validate.errors)}`)
        return
      }
      if (!operation) throw new Error(`the document has no ${method.toUpperCase()} ${path}`)
      const response = operation.responses[String(status)]
      if (!response) throw new Error(`the document has no ${status} answer for ${method.toUpperCase()} ${path}`)
      const schema = response.content?.['application/json']?.schema
      if (!schema) return
      const validate = ajv.compile(resolve(schema))
      if (!validate(body))
        throw new Error(
          `${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
        )
    },
    schema: (name: string) => ajv.compile({ $ref: `openapi#/components/schemas/${name}` }),
    /** Whether the document's query parameter `name` takes `text` (a whole number read as one where it is an integer). */
    acceptsQuery: (path: string, method: string, name: string, text: string): boolean => {
      const parameter = doc.paths[path]?.[method]?.parameters?.find((p) => p.in === 'query' && p.name === name)
      if (!parameter) throw new Error(`the document has no query parameter ${name} of ${method.toUpperCase()} ${path}`)
      const value = parameter.schema.type === 'integer' && /^-?[0-9]+$/.test(text) ? Number(text) : text
      return ajv.validate(resolve(parameter.schema), value)
    },
  }
}
