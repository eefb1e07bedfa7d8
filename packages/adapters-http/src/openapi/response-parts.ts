import { ref } from './schema-parts.js'

// The pieces the paths share: a JSON answer, the generic error answer, and the headers several answers carry.
export const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
export const error = (description: string) => json(ref('Error'), description)
export const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } }
export const methodNotAllowed = {
  ...error('another method; `Allow` lists the right ones'),
  headers: { Allow: { schema: { type: 'string' } } },
}
