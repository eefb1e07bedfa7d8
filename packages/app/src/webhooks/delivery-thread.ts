import { parentPort, workerData } from 'node:worker_threads'
import { systemClock, type Hex, type OpenedWebhookOutbox, type WebhookOutboxOpener } from '@x402-facilitator/domain'
import { DeliveryWorker, type DeliverySettings } from './delivery-worker.js'
import { relayFrom, type RelayMessage } from './thread-relay.js'
import type { WebhookEndpoint } from './webhook-endpoints.js'
import { eventReceiptSigner, postWebhook } from './webhook-post.js'

/** What the service gives the delivery thread once. */
export interface DeliveryThreadData {
  readonly opener: WebhookOutboxOpener
  readonly endpoints: ReadonlyArray<WebhookEndpoint>
  readonly settings: DeliverySettings
  readonly timeoutMs: number
  /** Signs the receipts events carry: the service's attestation key (docs/ARCHITECTURE.md §4), never logged. */
  readonly attestationKey?: Hex
}

/** How often the thread's metrics reach the service's registry. */
const METRICS_EVERY_MS = 1_000

/**
 * The webhook delivery thread (docs/ARCHITECTURE.md §5.9): fan-out, leases, attempts and their records, on a pool of
 * its own, off the event loop that answers settles. Its log lines and summed metrics go to the service's thread;
 * asked to stop, it lets its attempts in flight end and records them first.
 */
const port = parentPort!
const post = (message: RelayMessage) => port.postMessage(message)
const { opener, endpoints, settings, timeoutMs, attestationKey } = workerData as DeliveryThreadData
const relay = relayFrom(post)
const { openWebhookOutbox } = (await import(opener.module)) as {
  openWebhookOutbox: (options: WebhookOutboxOpener['options']) => Promise<OpenedWebhookOutbox>
}
const opened = await openWebhookOutbox(opener.options)
const worker = new DeliveryWorker({
  outbox: opened.outbox,
  endpoints,
  post: postWebhook(timeoutMs, eventReceiptSigner(attestationKey)),
  clock: systemClock,
  timers: systemClock,
  logger: relay.log,
  metrics: relay.metrics,
  settings,
})
worker.start()
const reporting = setInterval(relay.flush, METRICS_EVERY_MS)
port.once('message', async () => {
  clearInterval(reporting)
  await worker.stop()
  await opened.close()
  relay.flush()
  post({ kind: 'stopped' })
  port.close()
})
