export * from './http-deps.js'
export * from './http-app.js'
export {
  isX402V1Body,
  isX402V2Body,
  refusalContext,
  type DecodedRequest,
  type Dialect,
  type Wording,
} from './dialects/dialect.js'
export { REQUEST_ID_HEADER, requestId } from './request-middleware.js'
export type { HttpAnswer } from './answers/http-answer.js'
export type { AnswerCase } from './answers/answer-cases.js'
export { settlementView } from './routes/settlement-routes.js'
export { openApiDocument } from './openapi/openapi-document.js'
export { schemas as openApiSchemas } from './openapi/schemas.js'
export type { RateLimit } from './operations/rate-limit.js'
export { specDialect } from './dialects/spec-dialect.js'
export { x402V1Dialect } from './dialects/x402-v1-dialect.js'
export { x402V2Dialect } from './dialects/x402-v2-dialect.js'
