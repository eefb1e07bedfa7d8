import { Counter, Gauge, type Registry } from 'prom-client'

/** `count`: how many such deliveries at once [1] (the delivery thread reports sums). */
export interface WebhookMetrics {
  readonly delivered: (endpoint: string, lagMs: number, count?: number) => void
  readonly failed: (endpoint: string, count?: number) => void
  readonly deadLettered: (endpoint: string, count?: number) => void
  readonly backlog: (pending: number, oldestMs: number) => void
}

/** Delivery lag, failures and dead letters (docs/OPERATIONS.md, "Webhooks"), in the service's registry. */
export const makeWebhookMetrics = (registry: Registry): WebhookMetrics => {
  const labelNames = ['endpoint'] as const
  const delivered = new Counter({
    name: 'facilitator_webhook_deliveries_total',
    help: 'Webhook deliveries answered 2xx, per endpoint',
    labelNames,
    registers: [registry],
  })
  const lag = new Gauge({
    name: 'facilitator_webhook_delivery_lag_seconds',
    help: 'From the event to its delivery, the last delivery per endpoint',
    labelNames,
    registers: [registry],
  })
  const failures = new Counter({
    name: 'facilitator_webhook_failures_total',
    help: 'Webhook attempts that failed (no 2xx in time, a redirect, a refused connection), per endpoint',
    labelNames,
    registers: [registry],
  })
  const dead = new Counter({
    name: 'facilitator_webhook_dead_letters_total',
    help: 'Webhook deliveries given up after WEBHOOK_DEAD_AFTER_HOURS, per endpoint',
    labelNames,
    registers: [registry],
  })
  const pending = new Gauge({
    name: 'facilitator_webhook_pending_deliveries',
    help: 'Webhook deliveries not yet delivered nor dead (all replicas)',
    registers: [registry],
  })
  const oldest = new Gauge({
    name: 'facilitator_webhook_oldest_pending_seconds',
    help: 'Age of the oldest pending webhook delivery (0: none)',
    registers: [registry],
  })
  return {
    delivered: (endpoint, lagMs, count = 1) => {
      delivered.inc({ endpoint }, count)
      lag.set({ endpoint }, lagMs / 1000)
    },
    failed: (endpoint, count = 1) => failures.inc({ endpoint }, count),
    deadLettered: (endpoint, count = 1) => dead.inc({ endpoint }, count),
    backlog: (count, oldestMs) => {
      pending.set(count)
      oldest.set(oldestMs / 1000)
    },
  }
}
