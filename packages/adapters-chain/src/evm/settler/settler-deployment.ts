import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  formatEther,
  http,
  type Chain,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { batchSettlerAbi, batchSettlerBytecode } from '../../generated/batch-settler.js'
import { lowerCase } from '../hex-bytes.js'

/**
 * What one settle item's token call may burn at most (BatchSettler's `itemGasLimit`): a lone USDC transfer with an
 * ERC-1271 payer uses ~100 000, so this leaves room for a wallet's own check, and a wallet burning gas costs no more.
 */
export const SETTLER_ITEM_GAS_LIMIT = 300_000n

/** Gas a `setSettler` transaction takes at most: a cold storage write from zero plus the call. */
const SET_SETTLER_GAS = 60_000n

export interface SettlerDeploymentParameters {
  readonly rpcUrl: string
  /** The EIP-3009 token the settler will call, and nothing else. */
  readonly token: Address
  /** Deploys the settler and becomes its owner. */
  readonly deployerKey: Hex
  /** Accounts allowed to call `settle` (the facilitator's signing keys). */
  readonly settlers: ReadonlyArray<Address>
  readonly itemGasLimit?: bigint
  /** How often receipts are polled [250 ms]. */
  readonly pollingIntervalMs?: number
  /** A line per step, for an operator watching. */
  readonly progress?: (line: string) => void
}

export interface SettlerDeployment {
  readonly address: Address
  readonly owner: Address
  readonly settlers: ReadonlyArray<Address>
  readonly itemGasLimit: bigint
}

/** Refusals an operator can act on: the message says what is wrong and nothing was sent, or what was. */
export class SettlerDeploymentError extends Error {}

/**
 * Deploys BatchSettler for `token` from `deployerKey` and allows each of `settlers`, one transaction each, waiting for
 * every receipt. Before sending anything it checks that the token has code and that the deployer can pay for all of
 * it at the current fees.
 */
export const deploySettler = async (p: SettlerDeploymentParameters): Promise<SettlerDeployment> => {
  const say = p.progress ?? (() => {})
  const itemGasLimit = p.itemGasLimit ?? SETTLER_ITEM_GAS_LIMIT
  const account = privateKeyToAccount(p.deployerKey)
  const transport = http(p.rpcUrl, { retryCount: 0 })
  const reader = createPublicClient({ transport, pollingInterval: p.pollingIntervalMs ?? 250 })
  const chainId = await reader.getChainId().catch((error: Error) => {
    throw new SettlerDeploymentError(`cannot reach RPC_URL: ${error.message.split('\n')[0]}`)
  })
  const chain: Chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [p.rpcUrl] } },
  })
  const client = createPublicClient({ chain, transport, pollingInterval: p.pollingIntervalMs ?? 250 })
  const wallet = createWalletClient({ account, chain, transport })

  const code = await client.getCode({ address: p.token })
  if (code === undefined || code === '0x')
    throw new SettlerDeploymentError(`ASSET_ADDRESS ${p.token} has no code on chain ${chainId}`)

  const deployData = encodeDeployData({
    abi: batchSettlerAbi,
    bytecode: batchSettlerBytecode,
    args: [p.token, itemGasLimit],
  })
  const deployGas = await client.estimateGas({ account, data: deployData })
  const { maxFeePerGas } = await client.estimateFeesPerGas()
  const needed = (deployGas + SET_SETTLER_GAS * BigInt(p.settlers.length)) * maxFeePerGas
  const balance = await client.getBalance({ address: account.address })
  if (balance < needed) {
    throw new SettlerDeploymentError(
      `insufficient gas funds: the deployer ${lowerCase(account.address)} holds ${formatEther(balance)} ETH, ` +
        `deploying and allowing ${p.settlers.length} settler(s) may cost up to ${formatEther(needed)} ETH at ` +
        `the current fees`,
    )
  }

  say(`deploying BatchSettler for token ${p.token} on chain ${chainId} from ${lowerCase(account.address)}`)
  const deployment = await client.waitForTransactionReceipt({
    hash: await wallet.sendTransaction({ data: deployData, gas: deployGas }),
  })
  if (deployment.status !== 'success' || !deployment.contractAddress) {
    throw new SettlerDeploymentError(`the deployment transaction ${deployment.transactionHash} reverted`)
  }
  const address = lowerCase(deployment.contractAddress)
  for (const settler of p.settlers) {
    const data = encodeFunctionData({ abi: batchSettlerAbi, functionName: 'setSettler', args: [settler, true] })
    const receipt = await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: address, data, gas: SET_SETTLER_GAS }),
    })
    if (receipt.status !== 'success')
      throw new SettlerDeploymentError(`setSettler(${settler}) reverted in ${receipt.transactionHash}`)
    say(`allowed settler ${settler}`)
  }
  return { address, owner: lowerCase(account.address), settlers: p.settlers, itemGasLimit }
}
