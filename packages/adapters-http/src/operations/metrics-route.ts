import type { Registry } from 'prom-client'
import type { HttpMiddleware } from '../http-state.js'
import { respond } from '../respond.js'

/** `GET /metrics`: the registry in Prometheus' text format. */
export const metricsRoute =
  (registry: Registry): HttpMiddleware =>
  async (ctx) => {
    respond(ctx, { status: 200, headers: { 'Content-Type': registry.contentType }, body: await registry.metrics() })
  }
