import { makePaymentRequestDecoder } from '@x402-facilitator/domain'
import { failureBody } from '../answers/http-answer.js'
import type { HttpDeps } from '../http-deps.js'
import { decodingRequestOnly, makeDialect, refusalContext, type Dialect, type Wording } from './dialect.js'

/** docs/ARCHITECTURE.md §4, the spec's own dialect: a failure is the endpoint's failure body, plus what is known. */
const specWording: Wording = {
  valid: (payer) => ({ valid: true, payer }),
  invalid: (code, message, payer) => ({ ...failureBody('verify', code, message), payer }),
  settled: ({ txHash, blockNumber, payer, replayed, confirmations }, receipt) => ({
    success: true,
    txHash,
    blockNumber: Number(blockNumber),
    ...(confirmations === undefined ? {} : { confirmations }),
    payer,
    ...(replayed ? { replayed: true } : {}),
    ...(receipt === undefined ? {} : { receipt }),
  }),
  waived: ({ payer, replayed }) => ({ success: true, txHash: '', payer, ...(replayed ? { replayed: true } : {}) }),
  pending: (code, message, { txHash, payer }) => ({ ...failureBody('settle', code, message), txHash, payer }),
  refused: (code, message, { payer, refusal }) => ({
    ...failureBody('settle', code, message),
    payer,
    ...refusalContext(refusal),
  }),
  notSettled: (code, message) => failureBody('settle', code, message),
}

export const specDialect = (deps: Pick<HttpDeps, 'addressChecksum'>): Dialect =>
  makeDialect(decodingRequestOnly(makePaymentRequestDecoder(deps.addressChecksum)), specWording)
