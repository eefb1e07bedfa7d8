// The pieces the schemas share: a reference to another schema, and the formats several of them use.
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
export const SAFE_INTEGER = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }
export const CONFIRMATIONS = {
  type: 'integer',
  minimum: 0,
  description:
    "blocks on top of the settlement's block at the chain head the facilitator last saw; final at CONFIRMATIONS",
}
export const DECIMAL_OR_HEX = '^(0|[1-9][0-9]*|0x[0-9a-fA-F]+)$'
export const nonEmpty = { type: 'string', minLength: 1 }
