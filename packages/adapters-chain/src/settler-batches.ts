import type { Address, BatchItem, ChainUnavailable, Hex, PreparedTransfer, TransferSubmitter } from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { encodeFunctionData } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { batchSettlerAbi } from './generated/batch-settler.js'
import { readQuantity, rightOrThrow, tryRpc } from './rpc-failure.js'
import { batchGasLimit, DEFAULT_BATCH_BOUNDS, fitsItemBound, itemsThatFit, settleBatchCallData, type BatchBounds } from './settler-batch.js'
import { SETTLER_ITEM_GAS_LIMIT } from './settler-deployment.js'
import { singleFlight } from './single-flight.js'

export interface SettlerBatchesOptions {
  readonly rpc: ChainRpc
  /** The BatchSettler our key may call (lower case). */
  readonly settler: Address
  /** Its `itemGasLimit` [read from it once]. */
  readonly itemGasLimit?: bigint
  readonly bounds?: BatchBounds
  /** Signs a call at the submitter's next account nonce. */
  readonly signNext: (to: Address, data: Hex, gas: bigint) => Promise<PreparedTransfer>
}

const readItemGasLimit = (rpc: ChainRpc, settler: Address): Promise<bigint> =>
  readQuantity(rpc, 'eth_call', [{ to: settler, data: encodeFunctionData({ abi: batchSettlerAbi, functionName: 'itemGasLimit' }) }, 'latest'])

/** The settler's `itemGasLimit`, read once (a failed read is asked again next time). */
export const makeItemGasLimitReader = (rpc: ChainRpc, settler: Address) =>
  singleFlight<ChainUnavailable, bigint>(tryRpc("reading the settler's item gas limit", () => readItemGasLimit(rpc, settler)))

/**
 * The trial gas of a payment that may be batched (docs/ARCHITECTURE.md §5.7): a call of the token gets the settler's
 * `itemGasLimit` in the batch, so its trial gets exactly that; a call through Multicall3 (an ERC-6492 deployment,
 * always alone) the trials' default.
 */
export const settlerTrialGas =
  (itemGasLimit: TE.TaskEither<ChainUnavailable, bigint>) =>
  async (call: { readonly viaMulticall3: boolean }): Promise<bigint | undefined> =>
    call.viaMulticall3 ? undefined : rightOrThrow(itemGasLimit)

/** The submitter's batch members (docs/ARCHITECTURE.md §5.7): how many payments fit one `settle` call, and signing it. */
export const makeSettlerBatches = (o: SettlerBatchesOptions): Required<Pick<TransferSubmitter, 'batchFits' | 'mayBatch' | 'prepareBatch'>> => {
  // Known once read (batchFits is synchronous: until then, the default bound).
  let known = o.itemGasLimit ?? SETTLER_ITEM_GAS_LIMIT
  const itemGasLimit = singleFlight<ChainUnavailable, bigint>(
    o.itemGasLimit !== undefined
      ? TE.right(o.itemGasLimit)
      : tryRpc("reading the settler's item gas limit", async () => (known = await readItemGasLimit(o.rpc, o.settler))),
  )
  return {
    mayBatch: (item: BatchItem) => fitsItemBound(item, known),
    batchFits: (items: ReadonlyArray<BatchItem>) => itemsThatFit(items, known, o.bounds ?? DEFAULT_BATCH_BOUNDS),
    prepareBatch: (items: ReadonlyArray<BatchItem>) =>
      tryRpc('preparing the settlement batch', async () => {
        const bound = await rightOrThrow(itemGasLimit)
        const data = settleBatchCallData(items, bound)
        return o.signNext(o.settler, data, batchGasLimit(data, items, bound))
      }),
  }
}
