import type { ChainRpc } from './chain-rpc.js'
import { classifyRpcError } from './rpc-failure.js'

/** How a send learns its receipt: `watcher` (one poller for all transactions in flight) or `sync` (EIP-7966). */
export type ReceiptMode = 'watcher' | 'sync'

/**
 * The receipt mode in effect: `watcher` unless `sync` is asked for and the node has EIP-7966
 * `eth_sendRawTransactionSync`. The node is asked once, with an empty transaction: a node that knows the method
 * complains about the transaction instead. No answer (timeout, transport) is not kept: the next call asks again.
 */
export const makeReceiptModeProbe = (rpc: ChainRpc, requested: ReceiptMode | undefined): (() => Promise<ReceiptMode>) => {
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
        return failure.code === -32601 || /not (found|supported|available)|does not exist|unknown method/i.test(failure.message)
          ? 'watcher'
          : 'sync'
      },
    ))
  }
}
