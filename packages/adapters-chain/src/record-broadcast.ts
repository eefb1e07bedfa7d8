import type { SendFailure } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { NonceAllocator } from './nonce-allocator.js'
import { classifyRpcError, describeRpcFailure } from './rpc-failure.js'

/** What the node made of one broadcast: accepted, or the error its request ended with. */
export type BroadcastResult = { readonly ok: true } | { readonly ok: false; readonly error: unknown }

const NONCE_TROUBLE = /nonce too (low|high)|invalid nonce|nonce has already been used|replacement transaction underpriced|already imported with a different/i
const ALREADY_KNOWN = /already known|known transaction|already imported|already exists|already in (the )?(mem)?pool/i

/** What a broadcast's error means: refused, uncertain, or the node has it already. */
export const sendFailure = (error: unknown): SendFailure | 'already known' => {
  const failure = classifyRpcError(error)
  switch (failure.kind) {
    case 'answered':
      return ALREADY_KNOWN.test(failure.message) ? 'already known' : { _tag: 'SendRejected', reason: failure.message }
    case 'unreachable':
      // The request reached no node: nothing was broadcast, so it is as final as a refusal.
      return { _tag: 'SendRejected', reason: failure.message, unreachable: true }
    case 'timeout':
    case 'transport':
      return { _tag: 'SendUncertain', reason: describeRpcFailure(failure) }
  }
}

/**
 * The nonce bookkeeping after a broadcast at `nonce` (docs/ARCHITECTURE.md §5.3), and what the send came to. Accepted,
 * or "already known": sent. Uncertain: the nonce is spent all the same (the node may have the transaction). Refused
 * for a nonce reason: the allocator re-reads the chain's count. Any other refusal leaves the nonce as it is.
 */
export const recordBroadcast = (nonces: NonceAllocator, nonce: bigint, result: BroadcastResult): E.Either<SendFailure, void> => {
  const failure = result.ok ? undefined : sendFailure(result.error)
  if (failure === undefined || failure === 'already known') {
    nonces.markBroadcast(nonce)
    return E.right(undefined)
  }
  if (failure._tag === 'SendRejected' && NONCE_TROUBLE.test(failure.reason)) nonces.resync()
  if (failure._tag === 'SendUncertain') nonces.markBroadcast(nonce)
  return E.left(failure)
}
