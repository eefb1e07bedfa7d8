import type { Registry } from 'prom-client'
import { sendReport, type HttpMiddleware } from '../http-context.js'

/** `GET /metrics`: the registry in Prometheus' text format. */
export const metricsRoute =
  (registry: Registry): HttpMiddleware =>
  async (ctx) => {
    sendReport(ctx, { _tag: 'Metrics', contentType: registry.contentType }, await registry.metrics())
  }
