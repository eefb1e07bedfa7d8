import type { EvmAddress as Address, Authorization, Hex, PaymentTrial } from '@x402-facilitator/domain'
import DataLoader from 'dataloader'
import { size } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { makeEstimatedPaymentTrial, type TrialQuery as Query } from './estimated-payment-trial.js'
import { paymentTrialsBytecode } from '../../generated/payment-trials.js'
import { lowerCase } from '../hex-bytes.js'
import { runPaymentTrials } from './payment-trials-call.js'
import { classifyRpcError, isRevert, isTransientRefusal, UnexpectedAnswer } from '../rpc/rpc-failure.js'
import type { TransferCall } from './transfer-call.js'

export interface PaymentTrialsOptions {
  readonly rpc: ChainRpc
  readonly token: Address
  /** The account the settle sends from: the trials run as its calls. */
  readonly from: Address
  readonly transferCall: (authorization: Authorization, signature: Hex) => TransferCall | Promise<TransferCall>
  /**
   * Gas each trial may use [1 000 000: a counterfactual wallet's deployment and transfer measured ≈ 373 000]: a payer
   * contract that burns gas in `isValidSignature` fails its own trial and nobody else's. A settle's transaction is
   * never given more (plus its intrinsic cost and margin).
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
  /**
   * Unix seconds [the system clock]: the earliest time the next block can have is the later of this and the latest
   * block's + 1.
   */
  readonly now?: () => bigint
}

export interface PaymentTrials {
  readonly trial: (authorization: Authorization, signature: Hex) => Promise<PaymentTrial>
}

/**
 * Payments per deployless call [16]: the result (≈ 256 bytes each) is returned as contract code (EIP-170: ≤ 24 576
 * bytes) and the init code stays under EIP-3860's 49 152 bytes (`MAX_INIT_BYTES`). Each payment may use `gasCap`,
 * so heavy ones can exceed the gas a node allows one `eth_call` (commonly 30–50 M): that call fails and its payments
 * are tried one by one, each well within it — slower, never wrong. 48 a call measured no cheaper for the node.
 */
const MAX_PER_CALL = 16
const MAX_INIT_BYTES = 40_000

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
  const one = makeEstimatedPaymentTrial(rpc, token, from)

  let deployless = options.deployless ?? true
  /** Whether the node runs `eth_call` with block overrides (its fourth parameter); learnt from its first refusal. */
  let overrides = true
  const now = options.now ?? (() => BigInt(Math.floor(Date.now() / 1000)))

  const notTried = (result: PaymentTrial | Error): boolean =>
    !(result instanceof Error) && result.transfer._tag === 'NotTried'

  /**
   * A payment whose validAfter is the latest block's time (or later) would fail there whatever it is: it is tried again
   * at the earliest time the next block can have (eth_call's block overrides), so a payment valid from the next block
   * is judged by the block that takes it (docs/ARCHITECTURE.md §3, rule 10).
   */
  const atNextBlock = async (queries: ReadonlyArray<Query>): Promise<Array<PaymentTrial | Error>> => {
    const { blockTime, results } = await runPaymentTrials(rpc, { token, from }, queries)
    const later = queries.flatMap((query, i) => (notTried(results[i]!) ? [{ query, i }] : []))
    if (later.length > 0 && overrides) {
      const at = now() > blockTime ? now() : blockTime + 1n
      try {
        const again = await runPaymentTrials(
          rpc,
          { token, from },
          later.map((l) => l.query),
          at,
        )
        // A node that drops the parameter runs the trials at the latest block: no verdict about the next one.
        if (again.blockTime !== at) overrides = false
        else later.forEach(({ i }, k) => (results[i] = again.results[k]!))
      } catch (error) {
        const failure = classifyRpcError(error)
        if (failure.kind !== 'answered' || error instanceof UnexpectedAnswer) throw error
        // geth before block overrides: "too many arguments, want at most 3" (-32602), which is no rate limit.
        const refusesParameter = failure.code === -32602 || /argument|param|override/i.test(failure.message)
        if (!refusesParameter && isTransientRefusal(failure)) throw error
        // A revert says nothing about the parameter; any other refusal is the node's: it does not take block overrides.
        if (refusesParameter || !isRevert(failure)) overrides = false
      }
    }
    return Promise.all(
      results.map((result, i) => (notTried(result) ? untried(queries[i]!, result as PaymentTrial) : result)),
    )
  }

  /**
   * A payment left untried is sent as it is only when its payer cannot burn our gas: an EOA. A payer with code (or
   * deployed by its own settle, ERC-6492) could make a blind transaction cost up to its whole gas limit: refused.
   */
  const untried = async ({ authorization: a, call: c }: Query, result: PaymentTrial): Promise<PaymentTrial> => {
    if (c.to === token && result.payerHasCode === false) return result
    const why = result.transfer._tag === 'NotTried' ? result.transfer.why : ''
    return {
      ...result,
      transfer: {
        _tag: 'WouldRevert',
        paused: false,
        payerBlacklisted: false,
        payeeBlacklisted: false,
        reason:
          `the payer ${a.from} has code (or is deployed by its settle), and its payment cannot be tried before ` +
          `it is sent: ${why}, and this node does not run eth_call at the next block's time (block overrides); ` +
          `send it again once a block after validAfter is mined`,
      },
    }
  }

  const settled = (queries: ReadonlyArray<Query>) =>
    Promise.all(
      queries.map((q) => one(q).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))),
    )

  const batch = async (queries: ReadonlyArray<Query>): Promise<Array<PaymentTrial | Error>> => {
    if (!deployless) return settled(queries)
    try {
      return await atNextBlock(queries)
    } catch (error) {
      const failure = classifyRpcError(error)
      if ((failure.kind !== 'answered' || isTransientRefusal(failure)) && !(error instanceof UnexpectedAnswer))
        throw error
      // Each payment is bounded by `gasCap`, so a lone one the node refuses means it refuses init code: stop asking.
      if (queries.length === 1) deployless = false
      else return (await Promise.all(queries.map((q) => batch([q])))).flat()
      return settled(queries)
    }
  }

  /**
   * Splits one tick's payments so that no call's init code outgrows `MAX_INIT_BYTES`, and each call has one gas cap.
   */
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
