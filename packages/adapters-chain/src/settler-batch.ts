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
 * What one item may take of a batch's gas. A 65-byte signature is checked by `ecrecover` (the payer's key) or by a
 * wallet; any other length only by a wallet's `isValidSignature`, which may burn more on-chain than in its trial
 * (it can tell an `eth_call` from a block) and so run the whole batch out of gas: such an item is given its full bound.
 */
const itemGas = ({ executionGas, signature }: BatchItem, itemGasLimit: bigint): bigint => {
  const wanted = executionGas === undefined || signature.length !== 132 ? itemGasLimit : (executionGas * 5n) / 4n + 20_000n
  return (wanted < itemGasLimit ? wanted : itemGasLimit) + ITEM_OVERHEAD_GAS
}

/** Calldata bytes of one item of `settle`: seven words, the signature's offset, length and padded bytes. */
const itemBytes = ({ signature }: BatchItem): number => 32 * 9 + Math.ceil((signature.length - 2) / 64) * 32

export interface BatchBounds {
  /** The most gas one batch may ask for [15 000 000: under EIP-7825's 16 777 216 per transaction, and most blocks]. */
  readonly maxGas: bigint
  /** The most calldata bytes one batch may carry [100 000: nodes refuse transactions over 128 KiB]. */
  readonly maxBytes: number
}

export const DEFAULT_BATCH_BOUNDS: BatchBounds = { maxGas: 15_000_000n, maxBytes: 100_000 }

/** How many of `items`, in order, one settler call can carry within `bounds` (at least one). */
export const itemsThatFit = (items: ReadonlyArray<BatchItem>, itemGasLimit: bigint, bounds: BatchBounds): number => {
  let gas = 21_000n + BATCH_OVERHEAD_GAS + itemGasLimit + itemGasLimit / 63n + 20_000n
  let bytes = 4 + 64
  for (const [k, item] of items.entries()) {
    // Calldata gas at most 16 a byte.
    gas += itemGas(item, itemGasLimit) + 16n * BigInt(itemBytes(item))
    bytes += itemBytes(item)
    if (k > 0 && (gas > bounds.maxGas || bytes > bounds.maxBytes)) return k
  }
  return items.length
}

/**
 * A batch's gas limit: each item what its trial used plus a quarter and the cold-access headroom (as a lone transfer's,
 * transfer-gas-limit.ts), never more than the settler's per-item bound (an untried item: the bound), plus the
 * settler's overhead per item; and, once, the room the settler demands before any item (`itemGasLimit` + 1/63 + its
 * overhead: it refuses to start an item with less, so the last item's check needs it) and the transaction's own cost.
 * An unused limit costs nothing; a short one would fail every item.
 */
export const batchGasLimit = (data: Hex, items: ReadonlyArray<BatchItem>, itemGasLimit: bigint): bigint => {
  const { intrinsic, floor } = calldataGas(data)
  const perItem = items.map((item) => itemGas(item, itemGasLimit))
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
