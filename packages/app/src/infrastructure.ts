import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain'
import type { Address, Hex } from '@x402-facilitator/domain'
import type { Config } from './config.js'
import { routeSettings } from './config/networks.js'
import { accountOf } from './facilitator-keys.js'
import type { ResourceStack } from './resource-stack.js'

/** The signing keys: the same on every network (docs/ARCHITECTURE.md §5.8). */
export interface SigningKeys {
  /** The first signing key: verify's trials run from its account, and /supported names it. */
  readonly facilitatorPrivateKey: Hex
  /** The account of that key (lower case). */
  readonly facilitator: Address
  /** Every signing key, the first above included: each signs, pays its gas and holds its replica lock in its lane. */
  readonly facilitatorPrivateKeys: ReadonlyArray<Hex>
  /** Their accounts (lower case), in the same order. */
  readonly facilitators: ReadonlyArray<Address>
}

/** One served token of a network: the settings its route is composed with (its network's, then its own). */
export interface ServedToken {
  readonly config: Config
  readonly address: Address
  /** The batch settler of this token (docs/ARCHITECTURE.md §5.7); none with `BATCHING=off`. Not checked yet. */
  readonly settlerAddress?: Address
}

/** One network: its node(s), its tokens, its signing keys, and in dev mode the chain started for it. */
export interface NetworkInfrastructure {
  /** The service's keys, or the network's own (`keysFile`). */
  readonly keys: SigningKeys
  readonly rpcUrls: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<ServedToken>
  /** `ERC6492_FACTORIES`, or in dev mode (unless set) the demo wallet factory. */
  readonly erc6492Factories: ReadonlyArray<Address>
  readonly multicall3: Address
  /** Dev mode only: the chain it started, with the demo payers. */
  readonly devChain?: LocalChain
}

/**
 * What the facilitator runs on: every network, as configured or as dev mode started them; the keys are the first
 * network's (the service's unless it has its own).
 */
export interface StartedInfrastructure extends SigningKeys {
  readonly networks: ReadonlyArray<NetworkInfrastructure>
}

/** One (network, token) as one route's composition reads it (docs/ARCHITECTURE.md §1). */
export interface Infrastructure extends SigningKeys {
  /** The network's name in the spec dialect (`NETWORK_ID`, else its CAIP-2 id): its label in metrics and logs. */
  readonly network: string
  /** Its CAIP-2 id, as its node answered at start-up. */
  readonly caip2: string
  /** Every network served (their names), this one among them. */
  readonly servedNetworks: ReadonlyArray<string>
  readonly rpcUrl: string
  readonly rpcUrls: ReadonlyArray<string>
  readonly tokenAddress: Address
  readonly devChain?: LocalChain
  readonly erc6492Factories: ReadonlyArray<Address>
  readonly multicall3: Address
  /** The batch settler of this route's token: `SETTLER_ADDRESS`, or in dev mode the one it deployed. */
  readonly settlerAddress?: Address
}

export const routeInfrastructure = (
  network: NetworkInfrastructure & { readonly name: string; readonly caip2: string },
  token: ServedToken,
  servedNetworks: ReadonlyArray<string>,
): Infrastructure => ({
  network: network.name,
  caip2: network.caip2,
  servedNetworks,
  ...network.keys,
  rpcUrl: network.rpcUrls[0]!,
  rpcUrls: network.rpcUrls,
  tokenAddress: token.address,
  devChain: network.devChain,
  erc6492Factories: network.erc6492Factories,
  multicall3: network.multicall3,
  settlerAddress: token.settlerAddress,
})

/** Dev mode's two chains: the first as one network always was, the second with a EURC-like token beside. */
const DEV_CHAINS = [
  { chainId: 31337, moreTokens: [] },
  { chainId: 31338, moreTokens: [{ name: 'Demo EUR', symbol: 'DEUR' }] },
] as const

/** What each demo payer holds of each demo token: startLocalChain's default, 1 000 tokens of 6 decimals. */
const DEV_PAYER_UNITS = 1_000_000_000n

/** No network configured: dev mode's local chains, each with demo tokens and funded payers. */
const startDevChains = async (config: Config, resources: ResourceStack, progress: (line: string) => void) => {
  progress(`dev mode: starting ${DEV_CHAINS.length} local chains (anvil)…`)
  // Dev mode keeps its own key unless a key pool is given (docs/ARCHITECTURE.md §5.8): then those keys, funded, each a settler.
  const pool =
    config.FACILITATOR_PRIVATE_KEYS !== undefined || config.FACILITATOR_PRIVATE_KEYS_FILE !== undefined
      ? config.facilitatorKeys
      : []
  const first = await startLocalChain({
    chainId: DEV_CHAINS[0].chainId,
    payers: config.DEMO_PAYERS,
    settler: config.BATCHING === 'on',
    facilitatorPrivateKey: pool[0],
    moreFacilitatorKeys: pool.slice(1),
  })
  resources.push('local chain', first.stop)
  // The same signing key on the second chain (the usual set-up of one key on every network), and the same payers, funded
  // in each of its tokens: `npm run demo -- --network` pays from them on either.
  const second = await startLocalChain({
    chainId: DEV_CHAINS[1].chainId,
    payers: 0,
    settler: config.BATCHING === 'on',
    facilitatorPrivateKey: first.facilitator.privateKey,
    moreFacilitatorKeys: pool.slice(1),
    moreTokens: DEV_CHAINS[1].moreTokens,
  })
  resources.push('second local chain', second.stop)
  for (const payer of first.payers)
    for (const token of [second, ...second.moreTokens]) await token.mint(payer.address, DEV_PAYER_UNITS)
  for (const chain of [first, second]) {
    const tokens = [{ symbol: chain.tokenSymbol, address: chain.tokenAddress }, ...chain.moreTokens]
    const deployed = tokens.map((t) => `${t.symbol} deployed at ${t.address}`).join(', ')
    progress(`dev mode: chain eip155:${chain.chainId}: demo token ${deployed}; ${first.payers.length} payers funded`)
  }
  progress(
    first.settlerAddress
      ? `dev mode: batch settler deployed at ${first.settlerAddress}`
      : 'dev mode: BATCHING=off, no batch settler',
  )
  const { factory, deployed, counterfactual } = first.smartWallets
  progress(
    `dev mode: demo smart wallets funded: ${deployed.address} (deployed), ${counterfactual.address} (not yet: ERC-6492 through the demo factory ${factory})`,
  )
  if (pool.length > 1) progress(`dev mode: ${pool.length} facilitator keys funded: ${pool.map(accountOf).join(', ')}`)
  return { chains: [first, second], privateKeys: pool.length > 0 ? pool : [first.facilitator.privateKey] }
}

/** A dev chain as a network: its tokens under dev mode's settings (the second named by its CAIP-2 id). */
const devNetwork = (config: Config, chain: LocalChain, index: number, keys: SigningKeys): NetworkInfrastructure => {
  const settings = { ...config, ...(index > 0 && { NETWORK_ID: undefined }), RPC_URL: chain.rpcUrl }
  const tokens = [{ address: chain.tokenAddress, settlerAddress: chain.settlerAddress }, ...chain.moreTokens]
  return {
    keys,
    rpcUrls: [chain.rpcUrl],
    tokens: tokens.map((token) => ({
      config: { ...settings, ASSET_ADDRESS: token.address, ASSET_SYMBOL: undefined },
      address: token.address,
      settlerAddress: config.BATCHING === 'on' ? token.settlerAddress : undefined,
    })),
    erc6492Factories: config.ERC6492_FACTORIES ?? [chain.smartWallets.factory],
    multicall3: config.MULTICALL3_ADDRESS,
    devChain: chain,
  }
}

/** The networks: the configured ones, or what dev mode starts in their place (its stops on `resources`). */
export const startInfrastructure = async (
  config: Config,
  resources: ResourceStack,
  progress: (line: string) => void,
): Promise<StartedInfrastructure> => {
  const dev = config.networks.length === 0 ? await startDevChains(config, resources, progress) : undefined
  const serviceKeys = dev?.privateKeys ?? config.facilitatorKeys
  const networks =
    dev?.chains.map((chain, i) => devNetwork(config, chain, i, signingKeys(serviceKeys))) ??
    config.networks.map((network): NetworkInfrastructure => {
      const tokens = network.tokens.map((token) => routeSettings(config, network, token))
      const [first] = tokens
      return {
        keys: signingKeys(network.facilitatorKeys ?? serviceKeys),
        rpcUrls: network.rpcUrls,
        tokens: tokens.map((settings) => ({
          config: settings,
          address: settings.ASSET_ADDRESS!,
          settlerAddress: config.BATCHING === 'on' ? settings.SETTLER_ADDRESS : undefined,
        })),
        erc6492Factories: first!.ERC6492_FACTORIES ?? [],
        multicall3: first!.MULTICALL3_ADDRESS,
      }
    })
  return { ...networks[0]!.keys, networks }
}

/** Keys as the lanes take them: the first is the one verify's trials run from and `/supported` names. */
const signingKeys = (privateKeys: ReadonlyArray<Hex>): SigningKeys => {
  const [privateKey] = privateKeys
  if (privateKey === undefined) throw new Error('configuration: FACILITATOR_PRIVATE_KEY is required with RPC_URL')
  const facilitators = privateKeys.map(accountOf)
  return {
    facilitatorPrivateKey: privateKey,
    facilitator: facilitators[0]!,
    facilitatorPrivateKeys: privateKeys,
    facilitators,
  }
}
