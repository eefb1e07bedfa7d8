import { createHash } from 'node:crypto'
import type { PaymentRequest } from '@x402-facilitator/domain'

/**
 * A digest of the canonical request: the decoded payment and requirements (docs/ARCHITECTURE.md §5.2) — x402 version,
 * scheme, network, signature, the authorization's fields, and the requirements' scheme, network, amount, asset,
 * payTo and maxTimeoutSeconds. Not the JSON spelling, field order, unknown fields nor `extra`: a retry matches
 * whatever the spelling, and any change to what is paid or how long to wait is another request.
 */
export const requestHash = (request: PaymentRequest): string =>
  createHash('sha256')
    .update(JSON.stringify(request, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)))
    .digest('hex')
