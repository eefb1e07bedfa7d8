import { UintFromString } from '@x402-facilitator/domain'
import type { ChainRpc } from './chain-rpc.js'
import { decodeAnswer, fieldOf } from './node-answer.js'

export interface Fees {
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

export interface FeeOracle {
  /** EIP-1559 fees for a new transaction: the node's estimate, cached briefly, within the cap. */
  readonly current: () => Promise<Fees>
  /** Fees for another attempt at a nonce: at least 10 % above `previous` (what nodes require), within the cap. */
  readonly replacing: (previous: Fees) => Promise<Fees>
}

export interface FeeOracleOptions {
  /** Hard upper bound on maxFeePerGas; unset: three times the node's first estimate. */
  readonly maxFeePerGas?: bigint
  /** How long one estimate serves [2 000 ms]: a settle does not pay an RPC round trip for its fees. */
  readonly cacheMs?: number
}

const bumped = (value: bigint): bigint => (value * 110n + 99n) / 100n
const max = (a: bigint, b: bigint) => (a > b ? a : b)
const min = (a: bigint, b: bigint) => (a < b ? a : b)

export const makeFeeOracle = (rpc: ChainRpc, options: FeeOracleOptions = {}): FeeOracle => {
  const cacheMs = options.cacheMs ?? 2_000
  let cached: { fees: Fees; at: number } | undefined
  let estimating: Promise<Fees> | undefined
  let cap = options.maxFeePerGas

  const estimate = async (): Promise<Fees> => {
    // viem's estimateFeesPerGas would cost the same two calls; these two go out as one batch.
    const [block, tip] = await Promise.all([rpc.read('eth_getBlockByNumber', ['latest', false]), rpc.read('eth_maxPriorityFeePerGas')])
    const baseFee = decodeAnswer(UintFromString, 'the baseFeePerGas of the latest block', fieldOf(block, 'baseFeePerGas') ?? '0x0')
    const maxPriorityFeePerGas = decodeAnswer(UintFromString, 'the answer to eth_maxPriorityFeePerGas', tip)
    // Room for the base fee to double before the transaction is mined, as viem and wallets allow.
    const fees = { maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas }
    cap ??= fees.maxFeePerGas * 3n
    return fees
  }

  const estimated = (): Promise<Fees> => {
    if (cached && performance.now() - cached.at < cacheMs) return Promise.resolve(cached.fees)
    return (estimating ??= estimate()
      .then((fees) => {
        cached = { fees, at: performance.now() }
        return fees
      })
      .finally(() => {
        estimating = undefined
      }))
  }

  const capped = (fees: Fees): Fees => {
    const maxFeePerGas = min(fees.maxFeePerGas, cap!)
    return { maxFeePerGas, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFeePerGas) }
  }

  return {
    current: async () => capped(await estimated()),
    replacing: async (previous) => {
      const now = await estimated()
      return capped({
        maxFeePerGas: max(bumped(previous.maxFeePerGas), now.maxFeePerGas),
        maxPriorityFeePerGas: max(bumped(previous.maxPriorityFeePerGas), now.maxPriorityFeePerGas),
      })
    },
  }
}
