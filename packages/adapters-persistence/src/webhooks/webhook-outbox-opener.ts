import type { OpenedWebhookOutbox, WebhookOutboxOpener } from '@x402-facilitator/domain'
import { createPgPool } from '../database/create-pg-pool.js'
import { makePgWebhookOutbox } from './pg-webhook-outbox.js'

interface OutboxOptions {
  readonly connectionString: string
  readonly timeoutMs: number
}

/** What another thread needs to open the outbox of the store on `connectionString` (docs/ARCHITECTURE.md §5.9). */
export const webhookOutboxOpener = (options: OutboxOptions): WebhookOutboxOpener => ({
  module: import.meta.url,
  options: { ...options },
})

/** The outbox on a pool of its own (3 connections: a fan-out, a lease and a record may run at once). */
export const openWebhookOutbox = async (options: OutboxOptions): Promise<OpenedWebhookOutbox> => {
  const pool = createPgPool({ connectionString: options.connectionString, timeoutMs: options.timeoutMs, poolMax: 3 })
  return { outbox: makePgWebhookOutbox(pool), close: () => pool.end() }
}
