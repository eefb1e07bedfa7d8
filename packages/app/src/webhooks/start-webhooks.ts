import { systemClock, type Clock, type Store } from '@x402-facilitator/domain'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { Config } from '../config.js'
import type { ResourceStack } from '../resource-stack.js'
import { startDeliveryThread } from './delivery-thread-host.js'
import { DeliveryWorker, type DeliverySettings } from './delivery-worker.js'
import { makeWebhookMetrics } from './webhook-metrics.js'
import { eventReceiptSigner, postWebhook } from './webhook-post.js'

const HOUR_MS = 3_600_000

const settingsOf = (config: Config): DeliverySettings => ({
  leaseMs: config.WEBHOOK_LEASE_MS,
  retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
  retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
  deadAfterMs: config.WEBHOOK_DEAD_AFTER_HOURS * HOUR_MS,
  pruneAfterMs: config.WEBHOOK_PRUNE_AFTER_HOURS * HOUR_MS,
  concurrency: config.WEBHOOK_CONCURRENCY,
  pollMs: config.WEBHOOK_POLL_MS,
})

/**
 * Webhook delivery (docs/ARCHITECTURE.md §5.9), stopped with the rest; none when the store keeps no outbox. With
 * endpoints, on the delivery thread; on this thread when there are none (it only prunes, once a minute), when the
 * store cannot be opened from another thread, or when a test drives the retries' clock.
 */
export const startWebhooks = (deps: {
  readonly config: Config
  readonly store: Store
  readonly logger: Logger
  readonly registry: Registry
  readonly resources: ResourceStack
  readonly clock?: Clock
}): void => {
  const { config, store, logger, registry, resources, clock } = deps
  if (store.webhookOutbox === undefined) return
  if (config.WEBHOOK_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS)
    throw new Error('configuration: WEBHOOK_LEASE_MS must be more than WEBHOOK_TIMEOUT_MS')
  const metrics = makeWebhookMetrics(registry)
  const attestationKey = config.ATTESTATION_PRIVATE_KEY
  const opener = store.webhookOutboxOpener
  if (config.WEBHOOKS.length > 0 && opener !== undefined && clock === undefined) {
    const thread = startDeliveryThread(
      {
        opener,
        endpoints: config.WEBHOOKS,
        settings: settingsOf(config),
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        ...(attestationKey === undefined ? {} : { attestationKey }),
      },
      metrics,
      logger,
    )
    resources.push('webhook delivery thread', thread.stop)
    return
  }
  const worker = new DeliveryWorker({
    outbox: store.webhookOutbox,
    endpoints: config.WEBHOOKS,
    post: postWebhook(config.WEBHOOK_TIMEOUT_MS, eventReceiptSigner(attestationKey)),
    clock: clock ?? systemClock,
    timers: systemClock,
    logger,
    metrics,
    settings: settingsOf(config),
  })
  worker.start()
  resources.push('webhook delivery worker', () => worker.stop())
}
