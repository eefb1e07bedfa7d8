import { createHash } from 'node:crypto'
import type { PaymentRequest } from '@x402-facilitator/domain'

/** A digest of the decoded request, so that an idempotent retry matches whatever the JSON spelling. */
export const requestHash = (request: PaymentRequest): string =>
  createHash('sha256')
    .update(JSON.stringify(request, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)))
    .digest('hex')
