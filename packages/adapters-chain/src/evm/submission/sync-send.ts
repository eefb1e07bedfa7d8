import type { Hex, PreparedTransfer, SendFailure, SendOutcome } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { recordBroadcast } from './broadcast-queue.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import type { NonceAllocator } from './nonce-allocator.js'
import { classifyRpcError } from '../rpc/rpc-failure.js'

/** EIP-7966: the transaction is in the pool, but no receipt came within the timeout. */
const SYNC_TIMEOUT_CODE = 4
const ACCEPTED = { ok: true } as const

export interface SyncSendDeps {
  readonly rpc: ChainRpc
  readonly nonces: NonceAllocator
  /** A receipt the node answered, as the submitter's outcome. */
  readonly mined: (receipt: unknown) => Promise<SendOutcome>
  /** The receipt watcher's wait, until `deadline` (performance.now ms). */
  readonly watch: (prepared: PreparedTransfer, deadline: number) => Promise<SendOutcome>
}

/**
 * `receiptMode: sync`: a send through EIP-7966 `eth_sendRawTransactionSync`, which answers with the receipt; what the
 * node took without a receipt in time is `Unconfirmed`, "already known" waits on the watcher.
 */
export const makeSyncSend = ({ rpc, nonces, mined, watch }: SyncSendDeps) => {
  /** The node may or may not have taken the transaction: ask it (one call) whether it knows the hash. */
  const knows = async (hash: Hex): Promise<boolean> => {
    try {
      return (await rpc.read('eth_getTransactionByHash', [hash])) !== null
    } catch {
      return false
    }
  }

  const sendSync = async (
    prepared: PreparedTransfer,
    waitMs: number,
    deadline: number,
  ): Promise<E.Either<SendFailure, SendOutcome>> => {
    try {
      // EIP-7966 lets a second parameter set the node's wait; anvil refuses it, so the HTTP bound is the wait.
      const receipt = await rpc.callWithTimeout('eth_sendRawTransactionSync', [prepared.raw], Math.max(1, waitMs))
      recordBroadcast(nonces, prepared.accountNonce, ACCEPTED)
      return E.right(await mined(receipt))
    } catch (error) {
      const failure = classifyRpcError(error)
      const inPool =
        (failure.kind === 'answered' && failure.code === SYNC_TIMEOUT_CODE) ||
        (failure.kind === 'timeout' && (await knows(prepared.txHash)))
      if (inPool) {
        recordBroadcast(nonces, prepared.accountNonce, ACCEPTED)
        return E.right({ _tag: 'Unconfirmed' })
      }
      const sent = recordBroadcast(nonces, prepared.accountNonce, { ok: false, error })
      // "Already known": the node has it from an earlier send, so its receipt comes through the watcher.
      return E.isLeft(sent) ? sent : E.right(await watch(prepared, deadline))
    }
  }
  return sendSync
}

/** How a send learns its receipt: `watcher` (one poller for all transactions in flight) or `sync` (EIP-7966). */
export type ReceiptMode = 'watcher' | 'sync'

/**
 * The receipt mode in effect: `watcher` unless `sync` is asked for and the node has EIP-7966
 * `eth_sendRawTransactionSync`. The node is asked once, with an empty transaction: a node that knows the method
 * complains about the transaction instead. No answer (timeout, transport) is not kept: the next call asks again.
 */
export const makeReceiptModeProbe = (
  rpc: ChainRpc,
  requested: ReceiptMode | undefined,
): (() => Promise<ReceiptMode>) => {
  let detected: Promise<ReceiptMode> | undefined
  return () => {
    if (requested !== 'sync') return Promise.resolve('watcher')
    return (detected ??= rpc.write('eth_sendRawTransactionSync', ['0x']).then(
      (): ReceiptMode => 'sync',
      (error): ReceiptMode => {
        const failure = classifyRpcError(error)
        if (failure.kind !== 'answered') {
          detected = undefined
          return 'watcher'
        }
        return failure.code === -32601 ||
          /not (found|supported|available)|does not exist|unknown method/i.test(failure.message)
          ? 'watcher'
          : 'sync'
      },
    ))
  }
}
