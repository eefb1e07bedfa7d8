import type { Address, BatchItem, BatchItemOutcome, Hex } from '@x402-facilitator/domain'
import { encodeFunctionData, parseEventLogs, type Log } from 'viem'
import { batchSettlerAbi } from './generated/batch-settler.js'
import { lowerCase } from './hex-bytes.js'
import { calldataGas } from './transfer-gas-limit.js'

/** What BatchSettler spends around one item's token call (encoding, the call, the event) besides the call's own gas. */
const ITEM_OVERHEAD_GAS = 25_000n
/** The settler's own cost once per batch (its checks, the items' calldata copied, the loop). */
const BATCH_OVERHEAD_GAS = 40_000n

/** `settle(items)` of BatchSettler (docs/ARCHITECTURE.md §5.7): item `i` is `items[i]`, its signature as given. */
export const settleBatchCallData = (items: ReadonlyArray<BatchItem>): Hex =>
  encodeFunctionData({
    abi: batchSettlerAbi,
    functionName: 'settle',
    args: [items.map(({ authorization: a, signature }) => ({ from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce, signature }))],
  })

/**
 * A batch's gas limit: each item what its trial used plus a quarter and the cold-access headroom (as a lone transfer's,
 * transfer-gas-limit.ts), never more than the settler's per-item bound (an untried item: the bound), plus the
 * settler's overhead per item; and, once, the room the settler demands before any item (`itemGasLimit` + 1/63 + its
 * overhead: it refuses to start an item with less, so the last item's check needs it) and the transaction's own cost.
 * An unused limit costs nothing; a short one would fail every item.
 */
export const batchGasLimit = (data: Hex, items: ReadonlyArray<BatchItem>, itemGasLimit: bigint): bigint => {
  const { intrinsic, floor } = calldataGas(data)
  const perItem = items.map(({ executionGas }) => {
    const wanted = executionGas === undefined ? itemGasLimit : (executionGas * 5n) / 4n + 20_000n
    return (wanted < itemGasLimit ? wanted : itemGasLimit) + ITEM_OVERHEAD_GAS
  })
  const total = perItem.reduce((a, b) => a + b, intrinsic + BATCH_OVERHEAD_GAS + itemGasLimit + itemGasLimit / 63n + 20_000n)
  return total > floor ? total : floor
}

/**
 * The settler's `ItemSettled` events in a receipt's logs (only those `settler` emitted), one outcome per item; the
 * revert data of a failed item decoded by `reasonOf` (the token's message, or the data as hex).
 */
export const itemOutcomesOf = (logs: ReadonlyArray<unknown>, settler: Address, reasonOf: (data: Hex) => string | undefined): ReadonlyArray<BatchItemOutcome> => {
  const own = (logs as Log[]).filter((log) => typeof log.address === 'string' && lowerCase(log.address as Address) === settler)
  return parseEventLogs({ abi: batchSettlerAbi, eventName: 'ItemSettled', logs: own, strict: true }).map(({ args }) => {
    const outcome = { index: Number(args.index), succeeded: args.success }
    if (args.success) return outcome
    const reason = args.revertData === '0x' ? undefined : (reasonOf(args.revertData) ?? args.revertData)
    return reason === undefined ? outcome : { ...outcome, revertReason: reason }
  })
}
