import type { Middleware } from 'koa'

export interface ReadinessCheck {
  readonly ok: boolean
  readonly detail: string
}

/** Each part that must work for the service to take traffic: chain, database, migrations, gas. */
export type Readiness = () => Promise<Readonly<Record<string, ReadinessCheck>>>

/** `GET /healthz`: the process answers. */
export const healthRoute = (): Middleware => async (ctx) => {
  ctx.set('Cache-Control', 'no-store')
  ctx.body = { status: 'ok' }
}

/** `GET /readyz`: 200 when every part is ready, else 503 naming the failing parts. */
export const readinessRoute =
  (readiness: Readiness): Middleware =>
  async (ctx) => {
    const checks = await readiness()
    const failing = Object.entries(checks)
      .filter(([, check]) => !check.ok)
      .map(([name]) => name)
    ctx.set('Cache-Control', 'no-store')
    ctx.status = failing.length === 0 ? 200 : 503
    ctx.body = { status: failing.length === 0 ? 'ready' : 'not_ready', ...(failing.length ? { failing } : {}), checks }
    if (failing.length) ctx.state.reasonCode = 'not_ready'
  }
