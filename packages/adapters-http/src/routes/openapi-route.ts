import { sendReport, type HttpMiddleware } from '../http-context.js'
import { openApiDocument } from '../openapi/openapi-document.js'

/** `GET /openapi.json`: the API description. */
export const openApiRoute = (): HttpMiddleware => async (ctx) => {
  sendReport(ctx, { _tag: 'ApiDescription' }, openApiDocument)
}
