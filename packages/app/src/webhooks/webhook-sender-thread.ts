import { parentPort, workerData } from 'node:worker_threads'
import type { LeasedDelivery } from '@x402-facilitator/domain'
import type { WebhookEndpoint } from './webhook-endpoints.js'
import { postWebhook } from './webhook-post.js'

/** What the service gives the thread once. */
export interface SenderThreadData {
  readonly endpoints: ReadonlyArray<WebhookEndpoint>
  readonly timeoutMs: number
}

/** One attempt asked of the thread, and its answer (`seq` pairs them). */
export interface SendRequest {
  readonly seq: number
  readonly endpoint: string
  readonly delivery: LeasedDelivery
  readonly signedAt: Date
}

/**
 * The webhook sender thread (docs/ARCHITECTURE.md §5.9): signs and sends the attempts the delivery worker leased, off
 * the event loop that answers settles; it holds no state of its own, so losing it loses nothing but attempts in
 * flight, whose leases run out.
 */
const { endpoints, timeoutMs } = workerData as SenderThreadData
const byUrl = new Map(endpoints.map((endpoint) => [endpoint.url, endpoint]))
const post = postWebhook(timeoutMs)
const port = parentPort!
port.on('message', ({ seq, endpoint, delivery, signedAt }: SendRequest) => {
  const known = byUrl.get(endpoint)
  const sent = known
    ? post(known, delivery, signedAt)
    : Promise.resolve({
        delivered: false,
        status: null,
        error: `no endpoint ${endpoint} in the sender thread`,
      } as const)
  void sent.then((outcome) => port.postMessage({ seq, outcome }))
})
