import type { HttpMiddleware } from '../http-state.js'
import { openApiDocument } from '../openapi/openapi-document.js'
import { respond } from '../respond.js'

/** `GET /openapi.json`: the API description. */
export const openApiRoute = (): HttpMiddleware => async (ctx) => {
  respond(ctx, { status: 200, body: openApiDocument })
}
