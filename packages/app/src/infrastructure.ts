import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain'
import type { Address, Hex } from '@x402-facilitator/domain'
import { privateKeyToAddress } from 'viem/accounts'
import type { Config } from './config.js'
import { startDevDatabase } from './dev-database.js'
import type { ResourceStack } from './resource-stack.js'

/** What the facilitator runs on: the node, the token and the key, and Postgres, as configured or as dev mode started them. */
export interface Infrastructure {
  readonly rpcUrl: string
  readonly tokenAddress: Address
  readonly facilitatorPrivateKey: Hex
  /** The account of that key (lower case): it signs, pays the gas and holds the replica lock. */
  readonly facilitator: Address
  readonly databaseUrl: string
  /** Dev mode only: the chain it started, with the demo payers. */
  readonly devChain?: LocalChain
  /** `ERC6492_FACTORIES`, or in dev mode (unless set) the demo wallet factory. */
  readonly erc6492Factories: ReadonlyArray<Address>
  readonly multicall3: Address
  /**
   * The batch settler (docs/ARCHITECTURE.md §5.7): `SETTLER_ADDRESS`, or in dev mode the one it deployed; none with
   * `BATCHING=off`. Not checked yet: the start-up checks do that.
   */
  readonly settlerAddress?: Address
}

/** No RPC_URL: dev mode's local chain with a demo token and funded payers. */
const startDevChain = async (config: Config, resources: ResourceStack, progress: (line: string) => void) => {
  progress('dev mode: starting a local chain (anvil)…')
  const devChain = await startLocalChain({ payers: config.DEMO_PAYERS, settler: config.BATCHING === 'on' })
  resources.push('local chain', devChain.stop)
  progress(`dev mode: demo token ${devChain.tokenSymbol} deployed at ${devChain.tokenAddress}, ${devChain.payers.length} payers funded`)
  progress(devChain.settlerAddress ? `dev mode: batch settler deployed at ${devChain.settlerAddress}` : 'dev mode: BATCHING=off, no batch settler')
  const { factory, deployed, counterfactual } = devChain.smartWallets
  progress(`dev mode: demo smart wallets funded: ${deployed.address} (deployed), ${counterfactual.address} (not yet: ERC-6492 through the demo factory ${factory})`)
  return { rpcUrl: devChain.rpcUrl, tokenAddress: devChain.tokenAddress, privateKey: devChain.facilitator.privateKey, devChain }
}

const accountOf = (privateKey: Hex): Address => `0x${privateKeyToAddress(privateKey).slice(2).toLowerCase()}`

/** The chain, then the database: the configured ones, or what dev mode starts in their place (its stops on `resources`). */
export const startInfrastructure = async (config: Config, resources: ResourceStack, progress: (line: string) => void): Promise<Infrastructure> => {
  const { rpcUrl, tokenAddress, privateKey, devChain } =
    config.RPC_URL === undefined
      ? await startDevChain(config, resources, progress)
      : { rpcUrl: config.RPC_URL, tokenAddress: config.ASSET_ADDRESS, privateKey: config.FACILITATOR_PRIVATE_KEY, devChain: undefined }
  if (tokenAddress === undefined || privateKey === undefined) throw new Error('configuration: ASSET_ADDRESS and FACILITATOR_PRIVATE_KEY are required with RPC_URL')
  const facilitator = accountOf(privateKey)
  const databaseUrl = config.DATABASE_URL ?? (await startDevDatabase(config.DATA_DIR, { fresh: devChain !== undefined }, resources, progress))
  const erc6492Factories = config.ERC6492_FACTORIES ?? (devChain ? [devChain.smartWallets.factory] : [])
  const settlerAddress = config.BATCHING === 'on' ? (config.SETTLER_ADDRESS ?? devChain?.settlerAddress) : undefined
  return { rpcUrl, tokenAddress, facilitatorPrivateKey: privateKey, facilitator, databaseUrl, devChain, erc6492Factories, multicall3: config.MULTICALL3_ADDRESS, settlerAddress }
}
