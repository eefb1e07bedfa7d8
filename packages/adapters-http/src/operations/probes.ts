import type { Readiness } from '@x402-facilitator/domain'
import { sendReport, type HttpMiddleware } from '../http-context.js'

/** `GET /healthz`: the process answers. */
export const healthRoute = (): HttpMiddleware => async (ctx) => {
  sendReport(ctx, { _tag: 'Healthy' }, { status: 'ok' })
}

/** `GET /readyz`: 200 when every part is ready, else 503 naming the failing parts. */
export const readinessRoute =
  (readiness: Readiness): HttpMiddleware =>
  async (ctx) => {
    const { checks, ageSeconds } = await readiness()
    const failing = Object.entries(checks)
      .filter(([, check]) => !check.ok)
      .map(([name]) => name)
    const age = { ageSeconds: ageSeconds ?? null }
    if (failing.length === 0) return sendReport(ctx, { _tag: 'Ready' }, { status: 'ready', ...age, checks })
    sendReport(ctx, { _tag: 'NotReady' }, { status: 'not_ready', failing, ...age, checks })
  }
