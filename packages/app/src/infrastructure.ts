import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain'
import type { Address, Hex } from '@x402-facilitator/domain'
import type { Config } from './config.js'
import { accountOf } from './facilitator-keys.js'
import type { ResourceStack } from './resource-stack.js'

/** What the facilitator runs on: the node, the token and the keys, as configured or as dev mode started them. */
export interface Infrastructure {
  readonly rpcUrl: string
  readonly tokenAddress: Address
  /** The first signing key: verify's trials run from its account, and /supported names it. */
  readonly facilitatorPrivateKey: Hex
  /** The account of that key (lower case). */
  readonly facilitator: Address
  /**
   * Every signing key, the first above included (docs/ARCHITECTURE.md §5.8): each signs, pays its gas and holds its
   * replica lock in its own lane.
   */
  readonly facilitatorPrivateKeys: ReadonlyArray<Hex>
  /** Their accounts (lower case), in the same order. */
  readonly facilitators: ReadonlyArray<Address>
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
  // Dev mode keeps its own key unless a key pool is given (docs/ARCHITECTURE.md §5.8): then those keys, funded, each a settler.
  const pool =
    config.FACILITATOR_PRIVATE_KEYS !== undefined || config.FACILITATOR_PRIVATE_KEYS_FILE !== undefined
      ? config.facilitatorKeys
      : []
  const devChain = await startLocalChain({
    payers: config.DEMO_PAYERS,
    settler: config.BATCHING === 'on',
    facilitatorPrivateKey: pool[0],
    moreFacilitatorKeys: pool.slice(1),
  })
  resources.push('local chain', devChain.stop)
  progress(
    `dev mode: demo token ${devChain.tokenSymbol} deployed at ${devChain.tokenAddress}, ${devChain.payers.length} payers funded`,
  )
  progress(
    devChain.settlerAddress
      ? `dev mode: batch settler deployed at ${devChain.settlerAddress}`
      : 'dev mode: BATCHING=off, no batch settler',
  )
  const { factory, deployed, counterfactual } = devChain.smartWallets
  progress(
    `dev mode: demo smart wallets funded: ${deployed.address} (deployed), ${counterfactual.address} (not yet: ERC-6492 through the demo factory ${factory})`,
  )
  if (pool.length > 1) progress(`dev mode: ${pool.length} facilitator keys funded: ${pool.map(accountOf).join(', ')}`)
  return {
    rpcUrl: devChain.rpcUrl,
    tokenAddress: devChain.tokenAddress,
    privateKeys: pool.length > 0 ? pool : [devChain.facilitator.privateKey],
    devChain,
  }
}

/** The chain: the configured one, or what dev mode starts in its place (its stops on `resources`). */
export const startInfrastructure = async (
  config: Config,
  resources: ResourceStack,
  progress: (line: string) => void,
): Promise<Infrastructure> => {
  const { rpcUrl, tokenAddress, privateKeys, devChain } =
    config.RPC_URL === undefined
      ? await startDevChain(config, resources, progress)
      : {
          rpcUrl: config.RPC_URL,
          tokenAddress: config.ASSET_ADDRESS,
          privateKeys: config.facilitatorKeys,
          devChain: undefined,
        }
  const [privateKey] = privateKeys
  if (tokenAddress === undefined || privateKey === undefined)
    throw new Error('configuration: ASSET_ADDRESS and FACILITATOR_PRIVATE_KEY are required with RPC_URL')
  const facilitators = privateKeys.map(accountOf)
  const erc6492Factories = config.ERC6492_FACTORIES ?? (devChain ? [devChain.smartWallets.factory] : [])
  const settlerAddress = config.BATCHING === 'on' ? (config.SETTLER_ADDRESS ?? devChain?.settlerAddress) : undefined
  return {
    rpcUrl,
    tokenAddress,
    facilitatorPrivateKey: privateKey,
    facilitator: facilitators[0]!,
    facilitatorPrivateKeys: privateKeys,
    facilitators,
    devChain,
    erc6492Factories,
    multicall3: config.MULTICALL3_ADDRESS,
    settlerAddress,
  }
}
