import { receiptOfFamilyEvent, type LeasedDelivery, type ReceiptAttestor } from '@x402-facilitator/domain'
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js'
import type { WebhookEndpoint } from './webhook-endpoints.js'

export const EVENT_ID_HEADER = 'x402-facilitator-event-id'

/**
 * One attempt's body and headers, signed with `now` (docs/OPERATIONS.md, "Webhooks"). An event that leaves its
 * payment `confirmed` or `final` carries that state's signed receipt, the one the lookup answers (the same at each
 * attempt: the receipt is deterministic).
 */
export const signedDelivery = (
  endpoint: WebhookEndpoint,
  { event }: LeasedDelivery,
  now: Date,
  attestor?: Pick<ReceiptAttestor, 'attest'>,
) => {
  const facts = attestor === undefined ? undefined : receiptOfFamilyEvent(event)
  const body = JSON.stringify({
    id: event.eventId,
    kind: event.kind,
    time: event.createdAt.toISOString(),
    previousState: event.fromState,
    settlement: event.settlement,
    ...(facts === undefined ? {} : { receipt: attestor!.attest(facts) }),
  })
  const headers = {
    [SIGNATURE_HEADER]: signatureHeader(body, endpoint.secrets, Math.floor(now.getTime() / 1000)),
    [EVENT_ID_HEADER]: event.eventId,
  }
  return { body, headers }
}

/** The share of a retry's wait taken off at random, so that deliveries failed together are not tried again together. */
export const RETRY_JITTER = 0.25

/**
 * The wait before attempt `attempts + 1`: doubling from `baseMs`, at most `maxMs`, less up to `RETRY_JITTER` of it
 * (`random` in [0, 1)); never shorter than three quarters of the doubling, so the retries still space out.
 */
export const retryDelayMs = (attempts: number, baseMs: number, maxMs: number, random = Math.random): number => {
  const wait = Math.min(maxMs, baseMs * 2 ** Math.min(40, Math.max(0, attempts - 1)))
  return Math.round(wait * (1 - RETRY_JITTER * random()))
}

/** An endpoint's name in logs and metrics: its URL without query nor credentials. */
export const endpointLabel = (url: string): string => {
  const { origin, pathname } = new URL(url)
  return `${origin}${pathname}`
}
