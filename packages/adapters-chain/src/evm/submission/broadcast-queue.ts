import type { Hex, SendFailure } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import type { NonceAllocator } from './nonce-allocator.js'
import { classifyRpcError, describeRpcFailure, isAlreadyKnown } from '../rpc/rpc-failure.js'

export interface BroadcastQueue {
  /**
   * Broadcasts `raw` (account nonce `nonce`) with the transactions waiting meanwhile; settles with the node's verdict.
   */
  readonly send: (raw: Hex, nonce: bigint) => Promise<E.Either<SendFailure, void>>
  /** Looks at the waiting transactions again: a nonce they waited for was released and will not be broadcast. */
  readonly wake: () => void
}

export interface BroadcastQueueOptions {
  readonly rpc: Pick<ChainRpc, 'writeBatch'>
  /** The account's nonces: which are still being prepared, and the bookkeeping once the node answered. */
  readonly nonces: NonceAllocator
  /**
   * The longest a transaction waits for a lower nonce still being prepared: a guard past the journal's timeouts (the
   * app passes twice `DB_TIMEOUT_MS`), reached only by a nonce never given back [10 000 ms].
   */
  readonly maxHoldMs?: number
  /** Called once a broadcast's nonces are booked. */
  readonly onBooked?: () => void
}

interface Outgoing {
  readonly raw: Hex
  readonly nonce: bigint
  readonly since: number
  readonly done: (result: E.Either<SendFailure, void>) => void
}

const byNonce = (a: Outgoing, b: Outgoing) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0)

/**
 * One broadcast queue per account (docs/ARCHITECTURE.md §5.3): a single broadcast request in flight at a time,
 * carrying the transactions waiting meanwhile as one JSON-RPC batch in account-nonce order; a transaction whose nonce
 * is above one still being prepared (handed out, not yet broadcast nor released: its journal write is in flight) waits
 * for it, up to `maxHoldMs`. Concurrent single sends reach the node out of nonce order, and anvil then sometimes parks
 * a transaction in its queued pool for good (bench/anvil-send-order.mjs: 1 to 2 of 8 runs of 600 shuffled sends;
 * rebroadcasting it is "already imported", only a replacement at higher fees frees the pool): every later settle then
 * waited for the replacement recovery signs 15 s later. Sending above a nonce still being prepared gains nothing (no
 * node mines it first), so the hold lasts as long as that nonce is prepared: every nonce handed out is broadcast,
 * released or set aside once its journal write answered, within `DB_TIMEOUT_MS` (a `markSubmitted` takes 8 ms mean in
 * `npm run bench`). A 1 s hold expired under load (two busy cores, 32 settles at once) and let sends out of order: 32
 * settles then waited 30 s for recovery's replacement (issue 38). `maxHoldMs` is only a guard against a nonce never
 * given back, past the journal's timeouts.
 */
export const makeBroadcastQueue = ({
  rpc,
  nonces,
  maxHoldMs = 10_000,
  onBooked,
}: BroadcastQueueOptions): BroadcastQueue => {
  let waiting: Outgoing[] = []
  let sending = false
  let retry: ReturnType<typeof setTimeout> | undefined

  const pump = (): void => {
    if (sending || waiting.length === 0) return
    waiting.sort(byNonce)
    const queued = new Set(waiting.map((o) => o.nonce))
    const gap = nonces.lowestPrepared((nonce) => queued.has(nonce))
    const now = performance.now()
    const hold = gap !== undefined && !waiting.some((o) => now - o.since >= maxHoldMs)
    const batch = hold ? waiting.filter((o) => o.nonce < gap) : waiting
    if (batch.length === 0) {
      // Everything waits for a lower nonce still being prepared: look again shortly (its broadcast also wakes us).
      retry ??= setTimeout(() => {
        retry = undefined
        pump()
      }, 2)
      return
    }
    waiting = hold ? waiting.filter((o) => o.nonce >= gap) : []
    sending = true
    rpc
      .writeBatch(batch.map((o) => ({ method: 'eth_sendRawTransaction', params: [o.raw] })))
      .then(
        (outcomes) => batch.forEach((o, k) => o.done(recordBroadcast(nonces, o.nonce, outcomes[k]!))),
        (error: unknown) =>
          batch.forEach((o) =>
            o.done(recordBroadcast(nonces, o.nonce, { ok: false, error: error ?? new Error('broadcast failed') })),
          ),
      )
      .finally(() => {
        sending = false
        onBooked?.()
        pump()
      })
  }

  return {
    send: (raw, nonce) =>
      new Promise((done) => {
        waiting.push({ raw, nonce, since: performance.now(), done })
        // Sends prepared in this turn of the event loop go together.
        if (!sending) setImmediate(pump)
      }),
    wake: pump,
  }
}

/** What the node made of one broadcast: accepted, or the error its request ended with. */
export type BroadcastResult = { readonly ok: true } | { readonly ok: false; readonly error: unknown }

const NONCE_TROUBLE =
  /nonce too (low|high)|invalid nonce|nonce has already been used|replacement transaction underpriced|already imported with a different/i

/** What a broadcast's error means: refused, uncertain, or the node has it already. */
export const sendFailure = (error: unknown): SendFailure | 'already known' => {
  const failure = classifyRpcError(error)
  switch (failure.kind) {
    case 'answered':
      return isAlreadyKnown(failure) ? 'already known' : { _tag: 'SendRejected', reason: failure.message }
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
export const recordBroadcast = (
  nonces: NonceAllocator,
  nonce: bigint,
  result: BroadcastResult,
): E.Either<SendFailure, void> => {
  const failure = result.ok ? undefined : sendFailure(result.error)
  if (failure === undefined || failure === 'already known') {
    nonces.markBroadcast(nonce)
    return E.right(undefined)
  }
  if (failure._tag === 'SendRejected' && NONCE_TROUBLE.test(failure.reason)) nonces.resync()
  if (failure._tag === 'SendUncertain') nonces.markBroadcast(nonce)
  return E.left(failure)
}
