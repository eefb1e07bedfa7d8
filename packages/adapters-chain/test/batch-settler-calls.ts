import {
  CanonicalAddress,
  CanonicalBytes32,
  type EvmAddress as Address,
  type Authorization,
  type Hex,
} from '@x402-facilitator/domain'
import { decodeErrorResult, encodeFunctionData, parseEventLogs, type Log } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { batchSettlerAbi } from '../src/generated/batch-settler.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import { decodeAnswer, fieldOf } from '../src/evm/rpc/rpc-failure.js'
import { deploySettler } from '../src/evm/settler/settler-deployment.js'
import { mined, type Call } from './demo-token-calls.js'
import { eventually } from './fixtures.js'

export { circleUsdcUnderTest, demoUsdUnderTest, TOKENS, type TokenUnderTest } from './tokens-under-test.js'
import type { TokenUnderTest } from './tokens-under-test.js'

/** One `settle` item: an authorization, the gas its token call gets, and its signature, as the settler takes them. */
export type SettleItem = Authorization & { readonly gas: bigint; readonly signature: Hex }

/** The deployment default bound: an item given it gets all the settler allows. */
export const FULL_BOUND = 300_000n

export const itemOf = (
  signed: { readonly authorization: Authorization; readonly signature: Hex },
  gas = FULL_BOUND,
): SettleItem => ({
  ...signed.authorization,
  gas,
  signature: signed.signature,
})

/** A settler for `token`, deployed by the chain's facilitator key (its owner), which alone may call `settle`. */
export const deployedSettler = async (chain: LocalChain, token: Address): Promise<Address> =>
  (
    await deploySettler({
      rpcUrl: chain.rpcUrl,
      token,
      deployerKey: chain.facilitator.privateKey,
      settlers: [chain.facilitator.address],
      pollingIntervalMs: 20,
    })
  ).address

/** What every settler suite runs on: a fresh anvil, the token under test, the settler its facilitator key deployed. */
export interface SettlerChain {
  readonly chain: LocalChain
  readonly rpc: ChainRpc
  readonly token: TokenUnderTest
  readonly settler: Address
}

export const startSettlerChain = async (
  deploy: (rpc: ChainRpc, chain: LocalChain) => Promise<TokenUnderTest>,
): Promise<SettlerChain> => {
  const chain = await startLocalChain({ payers: 0 })
  const rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
  const token = await deploy(rpc, chain)
  return { chain, rpc, token, settler: await deployedSettler(chain, token.address) }
}

export const settlerCall = (
  settler: Address,
  from: Address,
  functionName: string,
  args: ReadonlyArray<unknown> = [],
): Call => ({
  from,
  to: settler,
  data: encodeFunctionData({ abi: batchSettlerAbi, functionName: functionName as 'settle', args: args as never }),
})

export const settleCall = (settler: Address, from: Address, items: ReadonlyArray<SettleItem>): Call =>
  settlerCall(settler, from, 'settle', [items])

export interface ItemOutcome {
  readonly index: number
  readonly authorizer: Address
  readonly nonce: Hex
  readonly success: boolean
  /** The token's `Error(string)` message, or the raw revert data when it is not one ('0x' for none). */
  readonly reason: string
  /** A failed item's gas (`ItemGasUsed`). */
  readonly gasUsed?: bigint
}

/** `Error(string)`'s message, or the data itself. */
export const reasonOf = (revertData: Hex): string => {
  if (revertData === '0x') return '0x'
  try {
    const decoded = decodeErrorResult({ data: revertData })
    return decoded.errorName === 'Error' ? String(decoded.args[0]) : revertData
  } catch {
    return revertData
  }
}

/** The settler's `ItemSettled` events in a receipt, in log order. */
export const outcomesIn = (receipt: unknown): ReadonlyArray<ItemOutcome> => {
  const logs = fieldOf(receipt, 'logs') as Log[]
  const gasOf = new Map(
    parseEventLogs({ abi: batchSettlerAbi, eventName: 'ItemGasUsed', logs }).map(({ args }) => [
      Number(args.index),
      args.gasUsed,
    ]),
  )
  return parseEventLogs({ abi: batchSettlerAbi, eventName: 'ItemSettled', logs }).map(({ args }) => ({
    index: Number(args.index),
    authorizer: args.authorizer.toLowerCase() as Address,
    nonce: args.nonce,
    success: args.success,
    reason: reasonOf(args.revertData),
    ...(gasOf.has(Number(args.index)) ? { gasUsed: gasOf.get(Number(args.index))! } : {}),
  }))
}

export interface Settled {
  readonly outcomes: ReadonlyArray<ItemOutcome>
  readonly gasUsed: bigint
}

/**
 * Gas that runs every item of a batch of honest payments and one or two wallets burning their bound: the settler stops
 * (it does not revert) once the next item's bound is not left, so `eth_estimateGas` finds a limit that runs no item.
 */
export const enoughGas = (items: number): bigint => {
  const gas = 700_000n + 150_000n * BigInt(items)
  return gas < 29_000_000n ? gas : 29_000_000n
}

/**
 * Sends `settle(items)` from `from` (anvil impersonating it) and waits for it to be mined; fails unless it succeeded.
 */
export const settled = async (
  rpc: ChainRpc,
  settler: Address,
  from: Address,
  items: ReadonlyArray<SettleItem>,
  gas?: bigint,
): Promise<Settled> => {
  const receipt = await minedWithGas(rpc, settleCall(settler, from, items), gas ?? enoughGas(items.length))
  if (fieldOf(receipt, 'status') !== '0x1') throw new Error('settle reverted')
  return { outcomes: outcomesIn(receipt), gasUsed: BigInt(String(fieldOf(receipt, 'gasUsed'))) }
}

/** Sends a call with a gas limit [anvil's estimate]; its receipt once mined, whether it succeeded or not. */
export const minedWithGas = async (rpc: ChainRpc, call: Call, gas?: bigint): Promise<unknown> => {
  await rpc.read('anvil_impersonateAccount', [call.from])
  const sent = gas === undefined ? call : { ...call, gas: `0x${gas.toString(16)}` }
  const hash = decodeAnswer(CanonicalBytes32, 'a transaction hash', await rpc.write('eth_sendTransaction', [sent]))
  let receipt: unknown = null
  await eventually(async () => (receipt = await rpc.read('eth_getTransactionReceipt', [hash])) !== null)
  return receipt
}

/** A fresh EOA holding `units` of the token (no ETH: payers only sign). */
export const freshPayer = async (token: TokenUnderTest, units: bigint): Promise<LocalAccount> => {
  const privateKey = generatePrivateKey()
  const address = privateKeyToAddress(privateKey).toLowerCase() as Address
  if (units > 0n) await token.mint(address, units)
  return { address, privateKey }
}

/** Deploys `data` (creation code and arguments) from `from`; the new contract's address. */
export const deployedContract = async (rpc: ChainRpc, from: Address, data: Hex): Promise<Address> =>
  decodeAnswer(CanonicalAddress, 'a contract address', fieldOf(await mined(rpc, { from, data }), 'contractAddress'))
