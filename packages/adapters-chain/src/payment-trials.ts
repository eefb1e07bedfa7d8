import type { Address, Authorization, Hex, PaymentTrial, TransferTrial } from '@x402-facilitator/domain'
import DataLoader from 'dataloader'
import { decodeErrorResult, encodeFunctionData, size } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { demoUsdAbi } from './generated/demo-usd.js'
import { paymentTrialsBytecode } from './generated/payment-trials.js'
import { isHexString, lowerCase } from './hex-bytes.js'
import { decodeTrialsResult, encodeTrialsDeployData, type TrialsResult } from './payment-trials-codec.js'
import { classifyRpcError, isRevert, isTransientRefusal, UnexpectedAnswer } from './rpc-failure.js'
import type { TransferCall } from './transfer-call.js'

export interface PaymentTrialsOptions {
  readonly rpc: ChainRpc
  readonly token: Address
  /** The account the settle sends from: the trials run as its calls. */
  readonly from: Address
  readonly transferCall: (authorization: Authorization, signature: Hex) => TransferCall | Promise<TransferCall>
  /**
   * Gas each trial may use [1 000 000: a counterfactual wallet's deployment and transfer measured ≈ 373 000]: a payer contract that burns gas in `isValidSignature` fails its own trial and
   * nobody else's. A settle's transaction is never given more (plus its intrinsic cost and margin).
   */
  readonly gasCap?: bigint
  /**
   * The gas the settle's own call will give this payment's token call, when it differs from `gasCap`: with a batch
   * settler, its `itemGasLimit` for a call of the token (the settler gives each item exactly that), so that a wallet
   * that burns gas only when little is left behaves in its trial as in the block (docs/ARCHITECTURE.md §5.7).
   */
  readonly gasCapFor?: (call: TransferCall) => Promise<bigint | undefined>
  /** One deployless call for a tick's trials [true]; false, or a node that refuses init code, tries each alone. */
  readonly deployless?: boolean
}

export interface PaymentTrials {
  readonly trial: (authorization: Authorization, signature: Hex) => Promise<PaymentTrial>
}

interface Query {
  readonly authorization: Authorization
  readonly call: TransferCall
  readonly gasCap: bigint
}

const BALANCE_OF = '0x70a08231'
const AUTHORIZATION_STATE = '0xe94a0102'
const word = (hex: string): string => hex.slice(2).toLowerCase().padStart(64, '0')
const WORDS = 6
/**
 * Payments per deployless call [16]: the result (≈ 256 bytes each) is returned as contract code (EIP-170: ≤ 24 576
 * bytes) and the init code stays under EIP-3860's 49 152 bytes (`MAX_INIT_BYTES`). Each payment may use `gasCap`,
 * so heavy ones can exceed the gas a node allows one `eth_call` (commonly 30–50 M): that call fails and its payments
 * are tried one by one, each well within it — slower, never wrong. 48 a call measured no cheaper for the node.
 */
const MAX_PER_CALL = 16
const MAX_INIT_BYTES = 40_000

const revertMessage = (answer: Hex): string | undefined => {
  if (answer === '0x') return undefined
  try {
    const decoded = decodeErrorResult({ abi: [], data: answer })
    return decoded.errorName === 'Error' ? String(decoded.args?.[0]) : `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`
  } catch {
    return `revert data ${answer.slice(0, 74)}${answer.length > 74 ? '…' : ''}`
  }
}

/**
 * Rule 10's reads (docs/ARCHITECTURE.md §3): each payment's balance, authorization state and a trial of the exact
 * transaction its settle would send, for every payment asked in one tick in one deployless `eth_call` of
 * `contracts/PaymentTrials.sol` (each in its own reverted sub-call, so trials never see each other). A node that will
 * not run init code: `eth_estimateGas` of the call, which reverts with the token's reason, plus two reads.
 */
export const makePaymentTrials = (options: PaymentTrialsOptions): PaymentTrials => {
  const { rpc, from } = options
  const token = lowerCase(options.token)
  const defaultGasCap = options.gasCap ?? 1_000_000n
  const call = (to: Address, data: Hex): Promise<unknown> => rpc.read('eth_call', [{ to, data }, 'latest'])

  const failed = (flags: bigint, gasUsed: bigint, answer: Hex, gasCap: bigint): TransferTrial => {
    const reason = gasUsed >= gasCap && answer === '0x' ? `the call used all of the ${gasCap} gas a payment may use` : revertMessage(answer)
    return {
      _tag: 'WouldRevert',
      paused: (flags & 1n) !== 0n,
      payerBlacklisted: (flags & 2n) !== 0n,
      payeeBlacklisted: (flags & 4n) !== 0n,
      ...(reason === undefined ? {} : { reason }),
    }
  }

  let deployless = options.deployless ?? true
  const many = async (queries: ReadonlyArray<Query>): Promise<Array<PaymentTrial | Error>> => {
    const payments = queries.map(({ authorization: a, call: c }) => ({ payer: a.from, payee: a.to, nonce: a.nonce, target: c.to, data: c.data }))
    const answer = await rpc.read('eth_call', [{ from, data: encodeTrialsDeployData(token, payments, queries[0]!.gasCap) }, 'latest'])
    let decoded: TrialsResult
    try {
      if (typeof answer !== 'string') throw new TypeError('not a string')
      decoded = decodeTrialsResult(answer)
    } catch {
      throw new UnexpectedAnswer(`the payment trials answered ${String(answer).slice(0, 20)}…`)
    }
    const { blockTime, words, answers } = decoded
    if (words.length !== WORDS * queries.length || answers.length !== queries.length) {
      throw new UnexpectedAnswer('the payment trials answered the wrong number of words')
    }
    return queries.map(({ authorization }, i) => {
      const w = words.slice(WORDS * i, WORDS * (i + 1))
      if (w[2] !== 1n) return new UnexpectedAnswer(`${token} did not answer balanceOf/authorizationState`)
      // A failure the token's flags explain (paused, blacklisted) is one whatever the block's time: only an unexplained
      // failure of an authorization not yet valid at the latest block is left to the block that takes it.
      const transfer: TransferTrial =
        w[3] === 1n
          ? { _tag: 'WouldSucceed', gasUsed: w[4]! }
          : authorization.validAfter >= blockTime && w[5] === 0n
            ? { _tag: 'NotTried', why: `the latest block (time ${blockTime}) is not after validAfter ${authorization.validAfter}` }
            : failed(w[5]!, w[4]!, answers[i]!, queries[i]!.gasCap)
      return { balance: w[0]!, authorizationUsed: w[1] !== 0n, transfer }
    })
  }

  /** Without init code: two reads and an `eth_estimateGas` of the call (its revert carries the token's reason). */
  const one = async ({ authorization: a, call: c, gasCap }: Query): Promise<PaymentTrial> => {
    const [balance, used] = await Promise.all([call(token, `${BALANCE_OF}${word(a.from)}`), call(token, `${AUTHORIZATION_STATE}${word(a.from)}${word(a.nonce)}`)])
    if (!isHexString(balance) || !isHexString(used) || size(balance) !== 32 || size(used) !== 32) {
      throw new UnexpectedAnswer(`${token} did not answer balanceOf/authorizationState`)
    }
    const state = { balance: BigInt(balance), authorizationUsed: BigInt(used) !== 0n }
    try {
      const estimate = await rpc.read('eth_estimateGas', [{ from, to: c.to, data: c.data }])
      if (!isHexString(estimate)) throw new UnexpectedAnswer('eth_estimateGas answered no quantity')
      return { ...state, transfer: { _tag: 'WouldSucceed', gasUsed: BigInt(estimate) } }
    } catch (error) {
      const failure = classifyRpcError(error)
      // Only a revert is the token's verdict; a rate limit or a missing block is the node's state (a 503 upstream).
      if (!isRevert(failure) || error instanceof UnexpectedAnswer) throw error
      const flag = async (data: Hex, bit: bigint): Promise<bigint> => {
        const answer = await call(token, data).catch(() => '0x')
        return isHexString(answer) && size(answer) === 32 && BigInt(answer) !== 0n ? bit : 0n
      }
      const flags = await Promise.all([
        flag(encodeFunctionData({ abi: demoUsdAbi, functionName: 'paused' }), 1n),
        flag(encodeFunctionData({ abi: demoUsdAbi, functionName: 'isBlacklisted', args: [a.from] }), 2n),
        flag(encodeFunctionData({ abi: demoUsdAbi, functionName: 'isBlacklisted', args: [a.to] }), 4n),
      ])
      const data = failure.kind === 'answered' && isHexString(failure.data) ? failure.data : '0x'
      const trial = failed(flags.reduce((x, y) => x | y, 0n), 0n, data, gasCap)
      return { ...state, transfer: trial._tag === 'WouldRevert' && trial.reason === undefined ? { ...trial, reason: failure.message } : trial }
    }
  }

  const settled = (queries: ReadonlyArray<Query>) =>
    Promise.all(queries.map((q) => one(q).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))))

  const batch = async (queries: ReadonlyArray<Query>): Promise<Array<PaymentTrial | Error>> => {
    if (!deployless) return settled(queries)
    try {
      return await many(queries)
    } catch (error) {
      const failure = classifyRpcError(error)
      if ((failure.kind !== 'answered' || isTransientRefusal(failure)) && !(error instanceof UnexpectedAnswer)) throw error
      // Each payment is bounded by `gasCap`, so a lone one the node refuses means it refuses init code: stop asking.
      if (queries.length === 1) deployless = false
      else return (await Promise.all(queries.map((q) => batch([q])))).flat()
      return settled(queries)
    }
  }

  /** Splits one tick's payments so that no call's init code outgrows `MAX_INIT_BYTES`, and each call has one gas cap. */
  const byInitSize = (queries: ReadonlyArray<Query>): Query[][] => {
    const chunks: Query[][] = [[]]
    let bytes = size(paymentTrialsBytecode)
    for (const query of [...queries].sort((x, y) => (x.gasCap < y.gasCap ? -1 : x.gasCap > y.gasCap ? 1 : 0))) {
      const cost = 256 + size(query.call.data)
      const last = chunks.at(-1)!
      if (last.length > 0 && (bytes + cost > MAX_INIT_BYTES || last[0]!.gasCap !== query.gasCap)) {
        chunks.push([])
        bytes = size(paymentTrialsBytecode)
      }
      chunks.at(-1)!.push(query)
      bytes += cost
    }
    return chunks
  }

  const loader = new DataLoader<Query, PaymentTrial>(
    async (queries) => {
      const chunks = byInitSize(queries)
      const results = (await Promise.all(chunks.map(batch))).flat()
      // Chunks follow the queries sorted by gas cap: each answer goes back to its own query's place.
      const byQuery = new Map(chunks.flat().map((query, i) => [query, results[i]!]))
      return queries.map((query) => byQuery.get(query)!)
    },
    { cache: false, maxBatchSize: MAX_PER_CALL, batchScheduleFn: (callback) => setImmediate(callback) },
  )

  return {
    trial: async (authorization, signature) => {
      const call = await options.transferCall(authorization, signature)
      return loader.load({ authorization, call, gasCap: (await options.gasCapFor?.(call)) ?? defaultGasCap })
    },
  }
}
