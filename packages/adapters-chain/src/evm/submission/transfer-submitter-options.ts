import type { EvmAddress as Address, Hex, Permit2Contracts, TransferSubmitter } from '@x402-facilitator/domain'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import type { BatchBounds } from '../settler/settler-batch.js'
import type { ReceiptMode } from './sync-send.js'

/** One signing key's options: what its shared core (signing-key-core.ts) is built from, whatever token it settles. */
export interface SigningKeyOptions {
  readonly rpc: ChainRpc
  /** The facilitator key: signs every transaction and pays the gas. */
  readonly privateKey: Hex
  /** Unset: asked from the node once. */
  readonly chainId?: number
  /**
   * How `send` learns the receipt: `watcher` (one poller for all transactions in flight), or `sync` (EIP-7966
   * `eth_sendRawTransactionSync`, which answers with the receipt; falls back to `watcher` when the node lacks it).
   * Measured on anvil at concurrency 32, the watcher keeps its rate for thousands of transactions where sync sends
   * fall off, hence the default [`watcher`].
   */
  readonly receiptMode?: ReceiptMode
  /**
   * Fee cap (wei per gas), a hard bound; unset: three times the latest block's base fee plus the tip, as fees are
   * re-read.
   */
  readonly maxFeePerGas?: bigint
  /** How long one fee estimate serves [2 000 ms]. */
  readonly feeCacheMs?: number
  /** The broadcast queue's guard on a send held above a nonce still being prepared (broadcast-queue.ts) [10 000 ms]. */
  readonly broadcastHoldMs?: number
  /** The receipt watcher's `stalledAfterMs` (receipt-watcher.ts) [5 000 ms]. */
  readonly stalledAfterMs?: number
}

/** One token's options: the calls its submitter builds over a key's core. */
export interface TokenSubmitterOptions {
  /** The EIP-3009 token the transfers call. */
  readonly token: Address
  /** Multicall3, through which an ERC-6492 payer's wallet is deployed with its transfer [the canonical address]. */
  readonly multicall3?: Address
  /** `ERC6492_FACTORIES`: the factories a settle may call (through Multicall3) to deploy a payer [none]. */
  readonly erc6492Factories?: ReadonlyArray<Address>
  /**
   * A BatchSettler (docs/ARCHITECTURE.md §5.7) our key may call: with it the submitter signs batches (`prepareBatch`)
   * and reads each payment's outcome from their receipts; without it every payment is its own transaction.
   */
  readonly settler?: Address
  /** The settler's `itemGasLimit` [read from the settler once]. */
  readonly settlerItemGasLimit?: bigint
  /** What one batch may ask for and carry [15 000 000 gas, 100 000 bytes]. */
  readonly batchBounds?: BatchBounds
  /** Gas limit of a transfer the node could not try (rule 10) [120 000]; otherwise it comes from the trial. */
  readonly gasLimit?: bigint
  /** Highest gas limit of any transfer [1 300 000]. */
  readonly maxGasLimit?: bigint
  /**
   * Told of each payment a receipt claims without the token's `AuthorizationUsed` (counted failed: receipt-logs.ts),
   * for an error-level log: the contract called is not what it claims to be.
   */
  readonly onUnbackedSuccess?: (message: string) => void
  /** Permit2 and the x402 proxies: whose calls are judged by the token's `Transfer` [the canonical addresses]. */
  readonly permit2?: Permit2Contracts
}

/** A submitter with its own key: one token over a core of its own (tests, tools); `makeChain` shares cores. */
export type RpcTransferSubmitterOptions = SigningKeyOptions & TokenSubmitterOptions

export interface RpcTransferSubmitter extends TransferSubmitter {
  /** The facilitator address (lower-case). */
  readonly address: Address
  /** The receipt mode in effect, once detected (`sync` turns `watcher` on a node without EIP-7966). */
  readonly receiptMode: () => Promise<ReceiptMode>
}
