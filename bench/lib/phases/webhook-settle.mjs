// The webhook-settle phase: settle throughput with one webhook endpoint configured against the same service without
// (bench/lib/setup/webhook-service.mjs), measured A B B A (control, webhook, webhook, control: half the payments
// each), so that a chain slowing down as it grows weighs on both alike; the deliveries still owed after the webhook
// halves are drained (timed) before the control's second half.
import { round, say } from '../basics.mjs'
import { settlePhase } from './settle.mjs'

const halves = (list) => [list.slice(0, Math.ceil(list.length / 2)), list.slice(Math.ceil(list.length / 2))]
const mean = (values) => round(values.reduce((a, b) => a + b, 0) / values.length)

/** Waits (up to a minute) until the webhook service has no pending delivery: { drainSeconds, pendingAfter }. */
const drain = async (db) => {
  const started = performance.now()
  const pending = async () =>
    Number((await db.query(`select count(*) as n from webhook_deliveries where state = 'pending'`)).rows[0].n)
  let left = await pending()
  while (left > 0 && performance.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    left = await pending()
  }
  return { drainSeconds: round((performance.now() - started) / 1000, 2), pendingAfter: left }
}

/** The run's `webhookSettle` JSON: the webhook service's figures (means of its two halves), `control`'s beside. */
export const measureWebhookSettle = async (context, payments) => {
  const { webhooks, pids } = context
  const chunk = (name, signed, warm, half) => {
    const side = webhooks[name]
    const phaseContext = {
      ...context,
      db: side.db,
      service: side.service,
      pids: { ...pids, service: side.service.pid, loneService: pids.service },
      windows: [],
    }
    return settlePhase(phaseContext, {
      label: `${name}-settle`,
      warm,
      signed,
      payTo: payments[`${name}PayTo`][half],
      facilitator: side.facilitator.address,
    })
  }
  const [control1, control2] = halves(payments.controlSigned)
  const [webhook1, webhook2] = halves(payments.webhookSigned)
  const a1 = await chunk('control', control1, payments.controlWarm, 0)
  const b1 = await chunk('webhook', webhook1, payments.webhookWarm, 0)
  const b2 = await chunk('webhook', webhook2, [], 1)
  // The deliveries still owed are the webhook service's work: drained before the control measures again.
  const drained = await drain(webhooks.webhook.db)
  const a2 = await chunk('control', control2, [], 1)
  const summary = (parts) => ({
    requests: parts.reduce((sum, p) => sum + p.requests, 0),
    rps: mean(parts.map((p) => p.rps)),
    p50Ms: mean(parts.map((p) => p.p50Ms)),
    p99Ms: Math.max(...parts.map((p) => p.p99Ms)),
    failures: parts.reduce((sum, p) => sum + p.failures, 0),
    serviceCpuUsPerRequest: mean(parts.map((p) => p.serviceCpuUsPerRequest)),
    exactlyOnce: {
      exactlyOnce: parts.every((p) => p.exactlyOnce.exactlyOnce),
      ok: parts.every((p) => p.exactlyOnce.ok),
      problems: parts.flatMap((p) => p.exactlyOnce.problems),
    },
  })
  const { stats } = webhooks.receiver
  const deliveries = {
    ...drained,
    received: stats.received,
    distinctEvents: stats.distinctEvents,
    signaturesChecked: stats.checked,
    badSignatures: stats.badSignatures,
  }
  const result = { ...summary([b1, b2]), control: summary([a1, a2]), chunks: { a1, b1, b2, a2 }, deliveries }
  say(
    `  webhook-settle: ${result.rps} req/s with one endpoint, ${result.control.rps} without (A B B A); webhooks: ${deliveries.distinctEvents} events received (${deliveries.received} requests), ${deliveries.pendingAfter} pending, drained ${deliveries.drainSeconds} s after the load`,
  )
  return result
}
