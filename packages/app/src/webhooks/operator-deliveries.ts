import type { OperatorDeps } from '@x402-facilitator/adapters-http'
import type { WebhookOutbox } from '@x402-facilitator/domain'

/** The operator's look-up of deliveries (docs/API.md, "Operator"): served only with OPERATOR_TOKEN and an outbox. */
export const operatorOf = (token: string | undefined, outbox: WebhookOutbox | undefined): OperatorDeps | undefined =>
  token === undefined || outbox === undefined ? undefined : { token, recentDeliveries: (query) => outbox.recent(query) }
