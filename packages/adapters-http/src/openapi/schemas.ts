import { deliverySchemas } from './delivery-schemas.js'
import { discoverySchemas } from './discovery-schemas.js'
import { permit2Schemas } from './permit2-schemas.js'
import { receiptSchemas } from './receipt-schemas.js'
import { requestSchemas } from './request-schemas.js'
import { resourceSchemas } from './resource-schemas.js'
import { resultSchemas } from './result-schemas.js'
import { x402V1Schemas } from './x402-v1-schemas.js'

/**
 * JSON Schemas (2020-12) of every body, written beside the io-ts codecs and checked against them by the tests:
 * a corpus of bodies must be accepted or refused alike by both. Two checks JSON Schema cannot express stay the
 * codecs' alone and are said in the descriptions: the EIP-55 checksum of mixed-case addresses, and the 2^256 bound.
 */
export const schemas = {
  ...requestSchemas,
  ...permit2Schemas,
  ...resultSchemas,
  ...x402V1Schemas,
  ...resourceSchemas,
  ...receiptSchemas,
  ...deliverySchemas,
  ...discoverySchemas,
} as const
