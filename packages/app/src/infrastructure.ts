import type { LocalChain } from './modules/chain/chain-family.js'
import type { EvmAddress as Address, Hex, Permit2Contracts } from '@x402-facilitator/domain'
import type { Config } from './config.js'
import { routeSettings } from './config/networks.js'
import { startDevChains } from './modules/chain/dev-chains.js'
import { accountOf } from './facilitator-keys.js'
import { permit2Of } from './permit2-network.js'
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
  /** Permit2 and x402's proxies on this network, when one of its tokens allows permit2 (permit2-network.ts). */
  readonly permit2?: Permit2Contracts
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
  permit2: permit2Of(network.tokens),
})

/**
 * A dev chain as a network: its tokens under dev mode's settings (the second named by its CAIP-2 id); DUSD paid both
 * ways, DUSDT (when deployed there) through Permit2 only.
 */
const devNetwork = (
  config: Config,
  chain: LocalChain,
  index: number,
  keys: SigningKeys,
  demoUsdt: Address | undefined,
): NetworkInfrastructure => {
  const settings = { ...config, ...(index > 0 && { NETWORK_ID: undefined }), RPC_URL: chain.rpcUrl }
  const tokens: ReadonlyArray<{ address: Address; settlerAddress?: Address; methods?: Config['TRANSFER_METHODS'] }> = [
    { address: chain.tokenAddress, settlerAddress: chain.settlerAddress, methods: ['eip3009', 'permit2'] },
    ...chain.moreTokens,
    ...(demoUsdt === undefined ? [] : [{ address: demoUsdt, methods: ['permit2'] as const }]),
  ]
  return {
    keys,
    rpcUrls: [chain.rpcUrl],
    tokens: tokens.map((token) => ({
      config: { ...settings, ASSET_ADDRESS: token.address, ASSET_SYMBOL: undefined, TRANSFER_METHODS: token.methods },
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
    dev?.chains.map((chain, i) => devNetwork(config, chain, i, signingKeys(serviceKeys), dev.demoUsdt[i])) ??
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
