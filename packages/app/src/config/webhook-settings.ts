import { webhookEndpoints } from '../webhooks/webhook-endpoints.js'
import { integer, secretToken } from './setting-codecs.js'

/** Settlement events sent to webhooks, and the operator's look-up of them (docs/CONFIGURATION.md, "Webhooks"). */
export const WEBHOOK_SETTINGS = {
  WEBHOOKS: {
    codec: webhookEndpoints,
    default: '[]',
    help: "the config file's `webhooks` only (never the environment): [{ url, secrets, events? }]",
  },
  WEBHOOK_TIMEOUT_MS: { codec: integer(100, 60_000), default: '5000', help: 'bound on one delivery attempt' },
  WEBHOOK_LEASE_MS: {
    codec: integer(1_000, 600_000),
    default: '30000',
    help: 'a delivery taken by a replica is not taken by another for this long (more than WEBHOOK_TIMEOUT_MS)',
  },
  WEBHOOK_RETRY_BASE_MS: { codec: integer(1, 3_600_000), default: '1000', help: 'the first retry waits this' },
  WEBHOOK_RETRY_MAX_MS: { codec: integer(1, 86_400_000), default: '3600000', help: 'the longest wait between tries' },
  WEBHOOK_DEAD_AFTER_HOURS: {
    codec: integer(1, 8_760),
    default: '72',
    help: 'a delivery still failing this long after its event is dead-lettered',
  },
  WEBHOOK_PRUNE_AFTER_HOURS: {
    codec: integer(1, 8_760),
    default: '168',
    help: 'delivered and dead deliveries, and their events, are deleted this long after they ended',
  },
  WEBHOOK_CONCURRENCY: { codec: integer(1, 256), default: '64', help: 'deliveries in flight per replica' },
  WEBHOOK_POLL_MS: { codec: integer(10, 60_000), default: '200', help: 'how often the delivery worker looks for work' },
  OPERATOR_TOKEN: {
    codec: secretToken,
    default: undefined,
    help: 'Authorization: Bearer <token> for the operator routes (deliveries); unset: those routes answer 404',
  },
} as const
