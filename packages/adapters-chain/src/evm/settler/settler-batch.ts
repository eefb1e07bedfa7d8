import { parseErc6492Signature } from '../wallets/erc6492-signature.js'
import type {
  EvmAddress as Address,
  BatchItem,
  ChainUnavailable,
  Hex,
  PreparedTransfer,
  TransferSubmitter,
} from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { encodeFunctionData } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { batchSettlerAbi } from '../../generated/batch-settler.js'
import { readQuantity, rightOrThrow, tryRpc } from '../rpc/rpc-failure.js'
import { SETTLER_ITEM_GAS_LIMIT } from './settler-deployment.js'
import { singleFlight } from '../rpc/single-flight.js'
import { calldataGas, withGasMargin } from '../submission/transfer-gas-limit.js'

/** What BatchSettler spends around one item's token call (encoding, the call, the event) besides the call's own gas. */
const ITEM_OVERHEAD_GAS = 25_000n
/** The settler's own cost once per batch (its checks, the items' calldata copied, the loop). */
const BATCH_OVERHEAD_GAS = 40_000n

/**
 * `settle(items)` of BatchSettler (docs/ARCHITECTURE.md §5.7): item `i` is `items[i]`, its signature as given, and the
 * gas its token call gets: its budget (`itemCallGas`), which the settler holds it to whatever code its payer has then.
 */
export const settleBatchCallData = (items: ReadonlyArray<BatchItem>, itemGasLimit: bigint): Hex =>
  encodeFunctionData({
    abi: batchSettlerAbi,
    functionName: 'settle',
    args: [
      items.map((item) => {
        const { authorization: a, signature } = item
        return {
          from: a.from,
          to: a.to,
          value: a.value,
          validAfter: a.validAfter,
          validBefore: a.validBefore,
          nonce: a.nonce,
          gas: itemCallGas(item, itemGasLimit),
          signature,
        }
      }),
    ],
  })

/**
 * The gas an item's token call gets from its trial (the settler holds it to that): the margin, with 30 000. Measured
 * on Circle's USDC (batch-settler-gas.test.ts): a payment to a payee swept to zero after its trial, in the block with
 * its slots cold, needs 20 000–26 000 more than its trial used (≈ 52 000); this leaves ≈ 17 000 to spare, and 100
 * such items still fit one batch under 15 000 000 gas.
 */
const trialBudget = (executionGas: bigint): bigint => withGasMargin(executionGas, 30_000n)

/**
 * The gas an item's token call gets (sent in the item; the settler holds the call to it). A payer with code (rule 7
 * went through its `isValidSignature`), or any signature that is not 65 bytes (only a wallet checks those), is given
 * its full bound whatever its trial used: a wallet may burn more in the block than in its trial (it can tell an
 * `eth_call` from a block). Only a payer's key (`ecrecover`) is budgeted from its trial, so should it gain code after
 * verify (EIP-7702) its item burns that budget at most.
 */
export const itemCallGas = ({ executionGas, signature, payerHasCode }: BatchItem, itemGasLimit: bigint): bigint => {
  const wanted =
    executionGas === undefined || payerHasCode === true || signature.length !== 132
      ? itemGasLimit
      : trialBudget(executionGas)
  return wanted < itemGasLimit ? wanted : itemGasLimit
}

const itemGas = (item: BatchItem, itemGasLimit: bigint): bigint => itemCallGas(item, itemGasLimit) + ITEM_OVERHEAD_GAS

/** Whether a settler call may carry `item`: its trial, with margin, fits the settler's per-item bound. */
export const fitsItemBound = ({ executionGas }: BatchItem, itemGasLimit: bigint): boolean =>
  executionGas === undefined || trialBudget(executionGas) <= itemGasLimit

/** Calldata bytes of one item of `settle`: eight words, the signature's offset, length and padded bytes. */
const itemBytes = ({ signature }: BatchItem): number => 32 * 10 + Math.ceil((signature.length - 2) / 64) * 32

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
 * A batch's gas limit: each item the gas its call gets (`itemCallGas`: from its trial, or the settler's per-item
 * bound), plus the settler's overhead per item; and, once, the room the settler demands before any item
 * (`itemGasLimit` + 1/63 + its overhead: it refuses to start an item with less, so the last item's check needs it) and
 * the transaction's own cost. An unused limit costs nothing; a short one would fail every item.
 */
export const batchGasLimit = (data: Hex, items: ReadonlyArray<BatchItem>, itemGasLimit: bigint): bigint => {
  const { intrinsic, floor } = calldataGas(data)
  const perItem = items.map((item) => itemGas(item, itemGasLimit))
  const total = perItem.reduce(
    (a, b) => a + b,
    intrinsic + BATCH_OVERHEAD_GAS + itemGasLimit + itemGasLimit / 63n + 20_000n,
  )
  return total > floor ? total : floor
}

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
  readQuantity(rpc, 'eth_call', [
    { to: settler, data: encodeFunctionData({ abi: batchSettlerAbi, functionName: 'itemGasLimit' }) },
    'latest',
  ])

/** The settler's `itemGasLimit`, read once (a failed read is asked again next time). */
export const makeItemGasLimitReader = (rpc: ChainRpc, settler: Address) =>
  singleFlight<ChainUnavailable, bigint>(
    tryRpc("reading the settler's item gas limit", () => readItemGasLimit(rpc, settler)),
  )

/**
 * The trial gas of a payment that may be batched (docs/ARCHITECTURE.md §5.7): a call of the token gets the settler's
 * `itemGasLimit` in the batch, so its trial gets exactly that; a call through Multicall3 (an ERC-6492 deployment,
 * always alone) the trials' default.
 */
export const settlerTrialGas =
  (itemGasLimit: TE.TaskEither<ChainUnavailable, bigint>) =>
  async (call: { readonly viaMulticall3: boolean }): Promise<bigint | undefined> =>
    call.viaMulticall3 ? undefined : rightOrThrow(itemGasLimit)

/**
 * The submitter's batch members (docs/ARCHITECTURE.md §5.7): how many payments fit one `settle` call, and signing it.
 */
export const makeSettlerBatches = (
  o: SettlerBatchesOptions,
): Required<Pick<TransferSubmitter, 'batchFits' | 'mayBatch' | 'prepareBatch'>> => {
  // Known once read (batchFits is synchronous: until then, the default bound).
  let known = o.itemGasLimit ?? SETTLER_ITEM_GAS_LIMIT
  const itemGasLimit = singleFlight<ChainUnavailable, bigint>(
    o.itemGasLimit !== undefined
      ? TE.right(o.itemGasLimit)
      : tryRpc("reading the settler's item gas limit", async () => (known = await readItemGasLimit(o.rpc, o.settler))),
  )
  return {
    // The settler calls the token's transferWithAuthorization: a Permit2 payment is always its own transaction, and so
    // is an ERC-6492 payer not yet deployed (Multicall3 deploys it in its settle's transaction; the settler cannot).
    mayBatch: (item: BatchItem) =>
      item.authorization.permit2 === undefined &&
      parseErc6492Signature(item.signature)._tag === 'NotWrapped' &&
      fitsItemBound(item, known),
    batchFits: (items: ReadonlyArray<BatchItem>) => itemsThatFit(items, known, o.bounds ?? DEFAULT_BATCH_BOUNDS),
    prepareBatch: (items: ReadonlyArray<BatchItem>) =>
      tryRpc('preparing the settlement batch', async () => {
        const bound = await rightOrThrow(itemGasLimit)
        const data = settleBatchCallData(items, bound)
        return o.signNext(o.settler, data, batchGasLimit(data, items, bound))
      }),
  }
}
