import {
  CANONICAL_PERMIT2_CONTRACTS,
  HexBytes,
  type EvmAddress as Address,
  type Permit2Contracts,
  type Bytes32,
  type ChainUnavailable,
  type Eip712Domain,
  type TokenInfo,
  type TokenReader,
  type TransferMethod,
} from '@x402-facilitator/domain'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { decodeFunctionResult, encodeFunctionData, type Hex } from 'viem'
import { makeAuthorizationEndedBy, makeAuthorizationUsedBy } from './authorization-used-by.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { eip3009TokenAbi } from './eip3009-token-abi.js'
import { lowerCase } from '../hex-bytes.js'
import { makePayerStateLoader, type PayerStateReadOptions } from './payer-state-loader.js'
import { makePermit2Reader } from '../permit2/permit2-reader.js'
import { makeSponsoredPermitCheck } from '../permit2/sponsored-permit-check.js'
import { makePermit2EndSearch } from '../permit2/permit2-used-by.js'
import { makePaymentTrials, type PaymentTrialsOptions } from './payment-trials.js'
import { classifyRpcError, decodeAnswer, readQuantity, tryRpc, UnexpectedAnswer } from '../rpc/rpc-failure.js'
import { singleFlight } from '../rpc/single-flight.js'
import {
  CANONICAL_MULTICALL3_ADDRESS,
  makePayerHasCode,
  transferCall,
  type TransferAddresses,
} from './transfer-call.js'

export interface RpcTokenReader extends TokenReader {
  /** Symbol and decimals, read once (for `/supported` and the human-readable reasons). */
  readonly tokenInfo: TE.TaskEither<ChainUnavailable, TokenInfo>
}

export interface RpcTokenReaderOptions extends PayerStateReadOptions {
  /** The account settles send from [the zero address]: rule 10's trials run as its calls. */
  readonly facilitator?: Address
  /** Where a settle through Multicall3 goes (`transferCall`), as the submitter is told. */
  readonly multicall3?: Address
  /** `ERC6492_FACTORIES`, as the submitter is told: which wrapped signatures a settle sends through Multicall3. */
  readonly erc6492Factories?: ReadonlyArray<Address>
  /** Gas one trial may use (`PaymentTrialsOptions.gasCap`). */
  readonly trialGasCap?: bigint
  /** The gas the settle will give a payment's call, for its trial (`PaymentTrialsOptions.gasCapFor`). */
  readonly trialGasCapFor?: PaymentTrialsOptions['gasCapFor']
  /** Permit2 and the x402 proxies: where a Permit2 payment's nonce and allowance are read [the canonical addresses]. */
  readonly permit2?: Permit2Contracts
  /** Blocks of one `eth_getLogs` when searching who used or cancelled an authorization (log-windows.ts) [1 000]. */
  readonly logWindowBlocks?: bigint
}

/**
 * Reads the token for rules 8–10 (docs/ARCHITECTURE.md §3). The payer states asked in one tick (concurrent verifies)
 * are read by one deployless `eth_call` (payer-state-loader.ts); a lone one, or every one on a node that refuses init
 * code, by two `eth_call`s, which the read transport sends with everything else of the tick as one JSON-RPC batch.
 */
export const makeRpcTokenReader = (
  rpc: ChainRpc,
  token: Address,
  options: RpcTokenReaderOptions = {},
): RpcTokenReader => {
  const address = lowerCase(token)
  const call = (data: Hex): Promise<unknown> => rpc.read('eth_call', [{ to: address, data }, 'latest'])
  const hexCall = async (data: Hex): Promise<Hex> => decodeAnswer(HexBytes, 'the answer to eth_call', await call(data))

  /** Calls a function a token may lack: undefined when the node says it reverted or it returned nothing. */
  const optionalCall = async (data: Hex): Promise<Hex | undefined> => {
    try {
      const result = await hexCall(data)
      return result === '0x' ? undefined : result
    } catch (error) {
      if (classifyRpcError(error).kind === 'answered') return undefined
      throw error
    }
  }

  const requiredCall = async (data: Hex, what: string): Promise<Hex> => {
    const result = await hexCall(data)
    if (result === '0x') throw new UnexpectedAnswer(`${address} has no ${what}`)
    return result
  }

  const readDomain = async (): Promise<Eip712Domain> => {
    const eip5267 = await optionalCall(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'eip712Domain' }))
    if (eip5267) {
      const [, name, version, chainId, verifyingContract] = decodeFunctionResult({
        abi: eip3009TokenAbi,
        functionName: 'eip712Domain',
        data: eip5267,
      })
      return { name, version, chainId, verifyingContract: lowerCase(verifyingContract) }
    }
    const [name, version, chainId] = await Promise.all([
      requiredCall(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'name' }), 'name()'),
      optionalCall(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'version' })),
      readQuantity(rpc, 'eth_chainId'),
    ])
    return {
      name: decodeFunctionResult({ abi: eip3009TokenAbi, functionName: 'name', data: name }),
      version: version ? decodeFunctionResult({ abi: eip3009TokenAbi, functionName: 'version', data: version }) : '2',
      chainId,
      verifyingContract: address,
    }
  }

  const readTokenInfo = async (): Promise<TokenInfo> => {
    const [symbol, decimals] = await Promise.all([
      requiredCall(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'symbol' }), 'symbol()'),
      requiredCall(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'decimals' }), 'decimals()'),
    ])
    return {
      address,
      symbol: decodeFunctionResult({ abi: eip3009TokenAbi, functionName: 'symbol', data: symbol }),
      decimals: decodeFunctionResult({ abi: eip3009TokenAbi, functionName: 'decimals', data: decimals }),
    }
  }

  const zero: Address = '0x0000000000000000000000000000000000000000'
  const payerStates = makePayerStateLoader(rpc, address, options)

  const addresses: TransferAddresses = {
    token: address,
    multicall3: lowerCase(options.multicall3 ?? CANONICAL_MULTICALL3_ADDRESS),
    allowedFactories: (options.erc6492Factories ?? []).map(lowerCase),
  }
  const payerHasCode = makePayerHasCode(rpc)
  const trials = makePaymentTrials({
    rpc,
    token: address,
    from: options.facilitator ?? zero,
    transferCall: async (authorization, signature) =>
      transferCall(authorization, signature, addresses, await payerHasCode(authorization, signature)),
    ...(options.trialGasCap === undefined ? {} : { gasCap: options.trialGasCap }),
    ...(options.trialGasCapFor === undefined ? {} : { gasCapFor: options.trialGasCapFor }),
    ...(options.deploylessReads === undefined ? {} : { deployless: options.deploylessReads }),
  })

  const permit2 = lowerCase((options.permit2 ?? CANONICAL_PERMIT2_CONTRACTS).permit2)
  const permit2Reader = makePermit2Reader({
    rpc,
    token: address,
    permit2,
    from: options.facilitator ?? zero,
    ...(options.trialGasCap === undefined ? {} : { gasCap: options.trialGasCap }),
  })

  const sponsoredPermitCheck = makeSponsoredPermitCheck(rpc, address, permit2)

  const { logWindowBlocks } = options
  const permit2Ends = makePermit2EndSearch(rpc, address, permit2, logWindowBlocks)
  const usedBy = makeAuthorizationUsedBy(rpc, token, logWindowBlocks)
  const endedBy = makeAuthorizationEndedBy(rpc, token, logWindowBlocks)
  return {
    domain: singleFlight(tryRpc('reading the token EIP-712 domain', readDomain)),
    tokenInfo: singleFlight(tryRpc('reading the token symbol and decimals', readTokenInfo)),
    payerState: (payer: Address, nonce: Bytes32, method?: TransferMethod) =>
      method === 'permit2'
        ? tryRpc("reading the payer's balance, allowance and Permit2 nonce", () =>
            permit2Reader.payerState(payer, nonce),
          )
        : tryRpc('reading the payer balance and authorization state', () => payerStates.load({ payer, nonce })),
    trialPayment: (authorization, signature) =>
      authorization.permit2 !== undefined
        ? tryRpc('trying the Permit2 settle at the latest block', async () => {
            const [trial, sponsoredPermit] = await Promise.all([
              permit2Reader.trial(authorization, transferCall(authorization, signature, addresses)),
              sponsoredPermitCheck(authorization),
            ])
            return sponsoredPermit === undefined ? trial : { ...trial, sponsoredPermit }
          })
        : tryRpc('trying the transfer at the latest block', () => trials.trial(authorization, signature)),
    authorizationUsedBy: (authorization, claimedAt, upToBlock) =>
      authorization.permit2 !== undefined
        ? permit2Ends.usedBy(authorization, claimedAt, upToBlock)
        : usedBy(authorization, claimedAt, upToBlock),
    authorizationEndedBy: (authorization, claimedAt, upToBlock) =>
      authorization.permit2 !== undefined
        ? permit2Ends.endedBy(authorization, claimedAt, upToBlock)
        : endedBy(authorization, claimedAt, upToBlock),
  }
}
