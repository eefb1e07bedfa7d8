import type { AttemptOutcome, Clock, LeasedDelivery } from '@x402-facilitator/domain'
import { endpointLabel, retryDelayMs } from './delivery-body.js'
import type { DeliverySettings } from './delivery-settings.js'
import type { WebhookEndpoint } from './webhook-endpoints.js'
import type { WebhookMetrics } from './webhook-metrics.js'
import type { WebhookPost } from './webhook-post.js'
import type { WorkerLog } from './thread-relay.js'

/** One attempt sent, and what it came to: delivered, retried later, or dead (its event too old to retry). */
export const attemptOutcome = async (
  { post, clock, settings }: { post: WebhookPost; clock: Clock; settings: DeliverySettings },
  endpoint: WebhookEndpoint,
  delivery: LeasedDelivery,
  endByMs: number,
): Promise<AttemptOutcome> => {
  const sent = await post(endpoint, delivery, clock.now(), endByMs)
  const now = clock.now()
  if (sent.delivered) return { delivery, now, delivered: true, status: sent.status, error: null, retryAt: null }
  const age = now.getTime() - delivery.event.createdAt.getTime()
  const wait = retryDelayMs(delivery.attempts, settings.retryBaseMs, settings.retryMaxMs)
  const retryAt = age >= settings.deadAfterMs ? null : new Date(now.getTime() + wait)
  return { delivery, now, delivered: false, status: sent.status, error: sent.error, retryAt }
}

/** The metrics and logs of the outcomes recorded (`applied`: the ids whose lease was still theirs). */
export const reportOutcomes = (
  outcomes: ReadonlyArray<AttemptOutcome>,
  applied: ReadonlySet<string>,
  { metrics, logger }: { metrics: WebhookMetrics; logger: WorkerLog },
): void => {
  for (const { delivery, now, delivered, error, retryAt } of outcomes) {
    if (!applied.has(delivery.id)) continue
    const label = endpointLabel(delivery.endpoint)
    if (delivered) {
      metrics.delivered(label, now.getTime() - delivery.event.createdAt.getTime())
      continue
    }
    metrics.failed(label)
    const context = { endpoint: label, eventId: delivery.event.eventId, attempts: delivery.attempts, reason: error }
    if (retryAt === null) {
      metrics.deadLettered(label)
      logger.error(context, 'webhooks: delivery dead-lettered')
    } else logger.warn({ ...context, retryAt }, 'webhooks: delivery failed')
  }
}
