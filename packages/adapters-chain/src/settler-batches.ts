import type { Address, BatchItem, ChainUnavailable, Hex, PreparedTransfer, TransferSubmitter } from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { encodeFunctionData } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { batchSettlerAbi } from './generated/batch-settler.js'
import { readQuantity } from './node-answer.js'
import { rightOrThrow, tryRpc } from './rpc-failure.js'
import { batchGasLimit, DEFAULT_BATCH_BOUNDS, itemsThatFit, settleBatchCallData, type BatchBounds } from './settler-batch.js'
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

/** The submitter's batch members (docs/ARCHITECTURE.md §5.7): how many payments fit one `settle` call, and signing it. */
export const makeSettlerBatches = (o: SettlerBatchesOptions): Required<Pick<TransferSubmitter, 'batchFits' | 'prepareBatch'>> => {
  // Known once read (batchFits is synchronous: until then, the default bound).
  let known = o.itemGasLimit ?? SETTLER_ITEM_GAS_LIMIT
  const itemGasLimit = singleFlight<ChainUnavailable, bigint>(
    o.itemGasLimit !== undefined
      ? TE.right(o.itemGasLimit)
      : tryRpc("reading the settler's item gas limit", async () =>
          (known = await readQuantity(o.rpc, 'eth_call', [{ to: o.settler, data: encodeFunctionData({ abi: batchSettlerAbi, functionName: 'itemGasLimit' }) }, 'latest'])),
        ),
  )
  return {
    batchFits: (items: ReadonlyArray<BatchItem>) => itemsThatFit(items, known, o.bounds ?? DEFAULT_BATCH_BOUNDS),
    prepareBatch: (items: ReadonlyArray<BatchItem>) =>
      tryRpc('preparing the settlement batch', async () => {
        const data = settleBatchCallData(items)
        return o.signNext(o.settler, data, batchGasLimit(data, items, await rightOrThrow(itemGasLimit)))
      }),
  }
}
