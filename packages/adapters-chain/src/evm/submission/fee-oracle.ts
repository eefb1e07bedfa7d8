import { UintFromString } from '@x402-facilitator/domain'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { decodeAnswer, fieldOf } from '../rpc/rpc-failure.js'

export interface Fees {
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

export interface FeeOracle {
  /** EIP-1559 fees for a new transaction: the node's estimate, cached briefly, within the cap. */
  readonly current: () => Promise<Fees>
  /**
   * Fees for another attempt at a nonce: at least 10 % above `previous` in both fields (what nodes require), within
   * the cap; `undefined` when the cap leaves no such room (`previous` is then the best one can offer).
   */
  readonly replacing: (previous: Fees) => Promise<Fees | undefined>
}

export interface FeeOracleOptions {
  /** Hard upper bound on maxFeePerGas; unset: three times the latest block's base fee and tip, as of the estimate. */
  readonly maxFeePerGas?: bigint
  /** How long one estimate serves [2 000 ms]: a settle does not pay an RPC round trip for its fees. */
  readonly cacheMs?: number
}

interface Estimate {
  readonly fees: Fees
  /** The cap on maxFeePerGas in force with these fees. */
  readonly cap: bigint
}

const bumped = (value: bigint): bigint => (value * 110n + 99n) / 100n
const max = (a: bigint, b: bigint) => (a > b ? a : b)
const min = (a: bigint, b: bigint) => (a < b ? a : b)

export const makeFeeOracle = (rpc: ChainRpc, options: FeeOracleOptions = {}): FeeOracle => {
  const cacheMs = options.cacheMs ?? 2_000
  let cached: { estimate: Estimate; at: number } | undefined
  let estimating: Promise<Estimate> | undefined

  const estimate = async (): Promise<Estimate> => {
    // viem's estimateFeesPerGas would cost the same two calls; these two go out as one batch.
    const [block, tip] = await Promise.all([
      rpc.read('eth_getBlockByNumber', ['latest', false]),
      rpc.read('eth_maxPriorityFeePerGas'),
    ])
    const baseFee = decodeAnswer(
      UintFromString,
      'the baseFeePerGas of the latest block',
      fieldOf(block, 'baseFeePerGas') ?? '0x0',
    )
    const maxPriorityFeePerGas = decodeAnswer(UintFromString, 'the answer to eth_maxPriorityFeePerGas', tip)
    // Room for the base fee to double before the transaction is mined, as viem and wallets allow. The cap follows
    // the chain (docs/ARCHITECTURE.md §5.4): one frozen at start-up would leave no replacement able to outbid after a
    // rise; an operator's cap stays a hard bound. The tip is inside the factor: where it dwarfs the base fee (anvil
    // after a few light blocks, chains with a floor on tips), 3 × base + tip left no room for the 10 % raise a
    // replacement needs, and a transaction the node parked could never be replaced (bench/anvil-send-order.mjs).
    return {
      fees: { maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas },
      cap: options.maxFeePerGas ?? (baseFee + maxPriorityFeePerGas) * 3n,
    }
  }

  const estimated = (): Promise<Estimate> => {
    if (cached && performance.now() - cached.at < cacheMs) return Promise.resolve(cached.estimate)
    return (estimating ??= estimate()
      .then((fresh) => {
        cached = { estimate: fresh, at: performance.now() }
        return fresh
      })
      .finally(() => {
        estimating = undefined
      }))
  }

  const capped = (fees: Fees, cap: bigint): Fees => {
    const maxFeePerGas = min(fees.maxFeePerGas, cap)
    return { maxFeePerGas, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFeePerGas) }
  }

  return {
    current: async () => {
      const { fees, cap } = await estimated()
      return capped(fees, cap)
    },
    replacing: async (previous) => {
      const { fees, cap } = await estimated()
      const least = {
        maxFeePerGas: bumped(previous.maxFeePerGas),
        maxPriorityFeePerGas: bumped(previous.maxPriorityFeePerGas),
      }
      const offered = capped(
        {
          maxFeePerGas: max(least.maxFeePerGas, fees.maxFeePerGas),
          maxPriorityFeePerGas: max(least.maxPriorityFeePerGas, fees.maxPriorityFeePerGas),
        },
        cap,
      )
      const outbids =
        offered.maxFeePerGas >= least.maxFeePerGas && offered.maxPriorityFeePerGas >= least.maxPriorityFeePerGas
      return outbids ? offered : undefined
    },
  }
}
