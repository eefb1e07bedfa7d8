import { makePaymentRequestDecoder } from '@x402-facilitator/domain'
import { failureBody } from '../endpoint.js'
import type { HttpDeps } from '../http-deps.js'
import { refusalContext, type Dialect } from './dialect.js'
import { makeDialect, type Wording } from './make-dialect.js'

/** docs/ARCHITECTURE.md §4, the spec's own dialect: a failure is the endpoint's failure body, plus what is known. */
const specWording: Wording = {
  valid: (payer) => ({ valid: true, payer }),
  invalid: (code, message, payer) => ({ ...failureBody('verify', code, message), payer }),
  settled: ({ txHash, blockNumber, payer, replayed, confirmations }) => ({
    success: true,
    txHash,
    blockNumber: Number(blockNumber),
    ...(confirmations === undefined ? {} : { confirmations }),
    payer,
    ...(replayed ? { replayed: true } : {}),
  }),
  pending: (code, message, { txHash, payer }) => ({ ...failureBody('settle', code, message), txHash, payer }),
  refused: (code, message, { payer, refusal }) => ({ ...failureBody('settle', code, message), payer, ...refusalContext(refusal) }),
  notSettled: (code, message) => failureBody('settle', code, message),
}

export const specDialect = (deps: Pick<HttpDeps, 'policy' | 'addressChecksum'>): Dialect =>
  makeDialect(makePaymentRequestDecoder(deps.addressChecksum), specWording, deps.policy)
