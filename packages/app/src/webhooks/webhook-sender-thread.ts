import { parentPort, workerData } from 'node:worker_threads'
import { makeSettlementAttestor } from '@x402-facilitator/adapters-chain'
import type { Hex, LeasedDelivery } from '@x402-facilitator/domain'
import type { WebhookEndpoint } from './webhook-endpoints.js'
import { postWebhook } from './webhook-post.js'

/** What the service gives the thread once. */
export interface SenderThreadData {
  readonly endpoints: ReadonlyArray<WebhookEndpoint>
  readonly timeoutMs: number
  /** Signs the receipts events carry: the service's attestation key (docs/ARCHITECTURE.md §4), never logged. */
  readonly attestationKey?: Hex
}

/** One attempt asked of the thread, and its answer (`seq` pairs them). */
export interface SendRequest {
  readonly seq: number
  readonly endpoint: string
  readonly delivery: LeasedDelivery
  readonly signedAt: Date
  readonly endByMs: number
}

/**
 * The webhook sender thread (docs/ARCHITECTURE.md §5.9): signs and sends the attempts the delivery worker leased, off
 * the event loop that answers settles; it holds no state of its own, so losing it loses nothing but attempts in
 * flight, whose leases run out.
 */
const { endpoints, timeoutMs, attestationKey } = workerData as SenderThreadData
const byUrl = new Map(endpoints.map((endpoint) => [endpoint.url, endpoint]))
// A receipt states its own time (the event's): the attestor's clock is never read.
const attestor =
  attestationKey === undefined ? undefined : makeSettlementAttestor(attestationKey, { now: () => new Date() })
const post = postWebhook(timeoutMs, attestor)
const port = parentPort!
port.on('message', ({ seq, endpoint, delivery, signedAt, endByMs }: SendRequest) => {
  const known = byUrl.get(endpoint)
  const sent = known
    ? post(known, delivery, signedAt, endByMs)
    : Promise.resolve({
        delivered: false,
        status: null,
        error: `no endpoint ${endpoint} in the sender thread`,
      } as const)
  void sent.then((outcome) => port.postMessage({ seq, outcome }))
})
