import { makeSettlementAttestor } from '../modules/chain/chain-family.js'
import type { Hex, LeasedDelivery, ReceiptAttestor } from '@x402-facilitator/domain'
import { signedDelivery } from './delivery-body.js'
import type { WebhookEndpoint } from './webhook-endpoints.js'
import { sendWebhook, type SendOutcome } from './webhook-send.js'

/**
 * One attempt of a delivery to its endpoint, signed with `signedAt`, over by `endByMs` (`Date.now()` time: when its
 * lease runs out, after which another replica may send it): what it came to. Never rejects.
 */
export type WebhookPost = (
  endpoint: WebhookEndpoint,
  delivery: LeasedDelivery,
  signedAt: Date,
  endByMs: number,
) => Promise<SendOutcome>

/**
 * Signs and sends on the calling thread (the delivery thread, in the service); receipts signed by `attestor`, if any.
 * An attempt gets `timeoutMs`, less if its lease ends sooner, and none once the lease has ended (a pass that came
 * late): so no two attempts of one event are ever in flight at once, whichever replicas hold them.
 */
export const postWebhook =
  (timeoutMs: number, attestor?: Pick<ReceiptAttestor, 'attest'>): WebhookPost =>
  async (endpoint, delivery, signedAt, endByMs) => {
    const left = endByMs - Date.now()
    if (left <= 0) return { delivered: false, status: null, error: 'its lease ran out before it was sent' }
    const { body, headers } = signedDelivery(endpoint, delivery, signedAt, attestor)
    return sendWebhook(endpoint.url, body, headers, Math.min(timeoutMs, left))
  }

/** What signs the receipts events carry, if a key is given: a receipt states the event's time, no clock is read. */
export const eventReceiptSigner = (attestationKey: Hex | undefined): Pick<ReceiptAttestor, 'attest'> | undefined =>
  attestationKey === undefined ? undefined : makeSettlementAttestor(attestationKey)
