import type { LeasedDelivery, ReceiptAttestor } from '@x402-facilitator/domain'
import { signedDelivery } from './delivery-body.js'
import type { WebhookEndpoint } from './webhook-endpoints.js'
import { sendWebhook, type SendOutcome } from './webhook-send.js'

/** One attempt of a delivery to its endpoint, signed with `signedAt`: what it came to. Never rejects. */
export type WebhookPost = (endpoint: WebhookEndpoint, delivery: LeasedDelivery, signedAt: Date) => Promise<SendOutcome>

/** Signs and sends on the calling thread (the sender thread runs it); receipts signed by `attestor`, if any. */
export const postWebhook =
  (timeoutMs: number, attestor?: Pick<ReceiptAttestor, 'attest'>): WebhookPost =>
  (endpoint, delivery, signedAt) => {
    const { body, headers } = signedDelivery(endpoint, delivery, signedAt, attestor)
    return sendWebhook(endpoint.url, body, headers, timeoutMs)
  }
