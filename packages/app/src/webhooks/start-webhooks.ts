import type { Clock, Store } from '@x402-facilitator/domain'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { Config } from '../config.js'
import type { ResourceStack } from '../resource-stack.js'
import { systemClock } from '../system-clock.js'
import { DeliveryWorker } from './delivery-worker.js'
import { makeWebhookMetrics } from './webhook-metrics.js'
import { startSenderThread } from './sender-thread.js'

const HOUR_MS = 3_600_000

/** The delivery worker (docs/ARCHITECTURE.md §5.9), stopped with the rest; none when the store keeps no outbox. */
export const startWebhooks = (deps: {
  readonly config: Config
  readonly store: Store
  readonly logger: Logger
  readonly registry: Registry
  readonly resources: ResourceStack
  readonly clock?: Clock
}): DeliveryWorker | undefined => {
  const { config, store, logger, registry, resources, clock = systemClock } = deps
  if (store.webhookOutbox === undefined) return undefined
  if (config.WEBHOOK_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS)
    throw new Error('configuration: WEBHOOK_LEASE_MS must be more than WEBHOOK_TIMEOUT_MS')
  const sender = startSenderThread(
    {
      endpoints: config.WEBHOOKS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      ...(config.ATTESTATION_PRIVATE_KEY ? { attestationKey: config.ATTESTATION_PRIVATE_KEY } : {}),
    },
    logger,
  )
  resources.push('webhook sender thread', sender.stop)
  const worker = new DeliveryWorker({
    outbox: store.webhookOutbox,
    endpoints: config.WEBHOOKS,
    post: sender.post,
    clock,
    timers: systemClock,
    logger,
    metrics: makeWebhookMetrics(registry),
    settings: {
      leaseMs: config.WEBHOOK_LEASE_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
      deadAfterMs: config.WEBHOOK_DEAD_AFTER_HOURS * HOUR_MS,
      pruneAfterMs: config.WEBHOOK_PRUNE_AFTER_HOURS * HOUR_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      pollMs: config.WEBHOOK_POLL_MS,
    },
  })
  worker.start()
  resources.push('webhook delivery worker', () => worker.stop())
  return worker
}
