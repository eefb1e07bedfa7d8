// The webhook-settle phase: settle throughput with one webhook endpoint configured against the same service without
// (bench/lib/setup/webhook-service.mjs), measured A B B A twice (bench/lib/phases/webhook-chunks.mjs); the deliveries
// still owed after each pair of webhook chunks are drained (timed) before the control measures again.
import { round, say } from '../basics.mjs'
import { settlePhase } from './settle.mjs'
import { WEBHOOK_ROUNDS, chunked } from './webhook-chunks.mjs'

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

/** The run's `webhookSettle` JSON: the webhook service's figures (means of its chunks), `control`'s beside. */
export const measureWebhookSettle = async (context, payments) => {
  const { webhooks, pids } = context
  const chunk = (name, signed, warm, index) => {
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
      payTo: payments[`${name}PayTo`][index],
      facilitator: side.facilitator.address,
    })
  }
  const control = chunked(payments.controlSigned)
  const webhook = chunked(payments.webhookSigned)
  const chunks = {}
  const drains = []
  for (let r = 0; r < WEBHOOK_ROUNDS; r++) {
    const [first, second] = [2 * r, 2 * r + 1]
    const warm = (list) => (r === 0 ? list : [])
    chunks[`a${first + 1}`] = await chunk('control', control[first], warm(payments.controlWarm), first)
    chunks[`b${first + 1}`] = await chunk('webhook', webhook[first], warm(payments.webhookWarm), first)
    chunks[`b${second + 1}`] = await chunk('webhook', webhook[second], [], second)
    // The deliveries still owed are the webhook service's work: drained before the control measures again.
    drains.push(await drain(webhooks.webhook.db))
    chunks[`a${second + 1}`] = await chunk('control', control[second], [], second)
  }
  const drained = {
    drainSeconds: round(
      drains.reduce((sum, d) => sum + d.drainSeconds, 0),
      2,
    ),
    pendingAfter: drains[drains.length - 1].pendingAfter,
  }
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
  const parts = (side) =>
    Object.entries(chunks)
      .filter(([key]) => key.startsWith(side))
      .map(([, part]) => part)
  const result = { ...summary(parts('b')), control: summary(parts('a')), chunks, deliveries }
  say(
    `  webhook-settle: ${result.rps} req/s with one endpoint, ${result.control.rps} without (A B B A twice); webhooks: ${deliveries.distinctEvents} events received (${deliveries.received} requests), ${deliveries.pendingAfter} pending, drained ${deliveries.drainSeconds} s after the load`,
  )
  return result
}
