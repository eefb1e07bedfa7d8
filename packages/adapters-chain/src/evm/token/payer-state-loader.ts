import type { EvmAddress as Address, Bytes32, PayerState } from '@x402-facilitator/domain'
import DataLoader from 'dataloader'
import { decodeAbiParameters, encodeDeployData, toFunctionSelector, type Hex } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { payerStatesAbi, payerStatesBytecode } from '../../generated/payer-states.js'
import { isHexString } from '../hex-bytes.js'
import { classifyRpcError, UnexpectedAnswer } from '../rpc/rpc-failure.js'

const BALANCE_OF = toFunctionSelector('balanceOf(address)')
const AUTHORIZATION_STATE = toFunctionSelector('authorizationState(address,bytes32)')
const word = (hex: string): string => hex.slice(2).toLowerCase().padStart(64, '0')
const isWord = (result: unknown): result is Hex => typeof result === 'string' && result.length === 66

export interface PayerStateReadOptions {
  /**
   * Read every payer state asked in one tick with one deployless `eth_call` of `contracts/PayerStates.sol` [true];
   * false, or a node that refuses such a call, reads each with two `eth_call`s (still one JSON-RPC batch per tick).
   */
  readonly deploylessReads?: boolean
  /**
   * Pairs per deployless call [128, at most 255]: the result is returned as init code's output, which a node treats as
   * contract code (EIP-170: ≤ 24,576 bytes; 96 bytes a pair) and charges 200 gas a byte.
   */
  readonly maxPairsPerCall?: number
}

export interface PayerStateQuery {
  readonly payer: Address
  readonly nonce: Bytes32
}

/**
 * Rules 8–9's reads of the payer's balance and authorization state (docs/ARCHITECTURE.md §3): those asked in one
 * tick (concurrent verifies) by one deployless `eth_call`; a lone one, or every one on a node that refuses init code,
 * by two `eth_call`s, which the read transport sends with everything else of the tick as one JSON-RPC batch.
 */
export const makePayerStateLoader = (
  rpc: ChainRpc,
  address: Address,
  options: PayerStateReadOptions,
): DataLoader<PayerStateQuery, PayerState> => {
  const call = (data: Hex): Promise<unknown> => rpc.read('eth_call', [{ to: address, data }, 'latest'])

  /** Two `eth_call`s; the read transport sends the calls of one tick as one JSON-RPC batch. */
  const readOne = async ({ payer, nonce }: PayerStateQuery): Promise<PayerState> => {
    const [balance, used] = await Promise.all([
      call(`${BALANCE_OF}${word(payer)}`),
      call(`${AUTHORIZATION_STATE}${word(payer)}${word(nonce)}`),
    ])
    if (!isWord(balance) || !isWord(used))
      throw new UnexpectedAnswer(`${address} did not answer balanceOf/authorizationState`)
    return { balance: BigInt(balance), authorizationUsed: BigInt(used) !== 0n }
  }

  let deployless = options.deploylessReads ?? true
  /** One deployless call for many pairs; a pair the token did not answer fails alone. */
  const readMany = async (queries: ReadonlyArray<PayerStateQuery>): Promise<Array<PayerState | Error>> => {
    const data = encodeDeployData({
      abi: payerStatesAbi,
      bytecode: payerStatesBytecode,
      args: [address, queries.map((q) => q.payer), queries.map((q) => q.nonce)],
    })
    const answer = await rpc.read('eth_call', [{ data }, 'latest'])
    let words: ReadonlyArray<bigint>
    try {
      if (!isHexString(answer)) throw new TypeError('not hex')
      words = decodeAbiParameters([{ type: 'uint256[]' }], answer)[0]
    } catch {
      throw new UnexpectedAnswer(`the payer-state reader answered ${String(answer).slice(0, 20)}…`)
    }
    if (words.length !== 3 * queries.length)
      throw new UnexpectedAnswer('the payer-state reader answered the wrong number of words')
    return queries.map((_, i) =>
      words[3 * i + 2] === 1n
        ? { balance: words[3 * i]!, authorizationUsed: words[3 * i + 1] !== 0n }
        : new UnexpectedAnswer(`${address} did not answer balanceOf/authorizationState`),
    )
  }

  const payerStates = new DataLoader<PayerStateQuery, PayerState>(
    async (queries) => {
      if (deployless && queries.length > 1) {
        try {
          return await readMany(queries)
        } catch (error) {
          // A node that will not run init code in eth_call (or a reader it answers oddly): read one by one from now on.
          if (classifyRpcError(error).kind !== 'answered' && !(error instanceof UnexpectedAnswer)) throw error
          deployless = false
        }
      }
      return Promise.all(
        queries.map((q) =>
          readOne(q).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
        ),
      )
    },
    {
      cache: false,
      maxBatchSize: Math.min(options.maxPairsPerCall ?? 128, 255),
      batchScheduleFn: (callback) => setImmediate(callback),
    },
  )
  return payerStates
}
