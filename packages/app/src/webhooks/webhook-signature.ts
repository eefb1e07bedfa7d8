import { createHmac } from 'node:crypto'

/** The header a delivery's signature travels in (docs/OPERATIONS.md, "Webhooks"). */
export const SIGNATURE_HEADER = 'x402-facilitator-signature'

/**
 * Stripe's scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, one `v1` per secret (two during a rotation).
 * Signed afresh at each attempt, so a receiver may refuse an old timestamp.
 */
export const signatureHeader = (body: string, secrets: ReadonlyArray<string>, unixSeconds: number): string =>
  [
    `t=${unixSeconds}`,
    ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`),
  ].join(',')
