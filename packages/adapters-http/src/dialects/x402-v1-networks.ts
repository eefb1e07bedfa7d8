import type { ServedNetwork } from '@x402-facilitator/domain'

/**
 * x402 v1 names EVM networks by name, not by CAIP-2: the names and chain ids of @x402/evm 2.27's v1 list
 * (`EVM_NETWORK_CHAIN_ID_MAP`), the one the official facilitator registers its v1 scheme on.
 */
const V1_EVM_CHAIN_IDS: ReadonlyMap<string, number> = new Map([
  ['ethereum', 1],
  ['sepolia', 11155111],
  ['abstract', 2741],
  ['abstract-testnet', 11124],
  ['base-sepolia', 84532],
  ['base', 8453],
  ['avalanche-fuji', 43113],
  ['avalanche', 43114],
  ['iotex', 4689],
  ['sei', 1329],
  ['sei-testnet', 1328],
  ['polygon', 137],
  ['polygon-amoy', 80002],
  ['peaq', 3338],
  ['story', 1514],
  ['educhain', 41923],
  ['skale-base-sepolia', 324705682],
  ['megaeth', 4326],
  ['monad', 143],
  ['stable', 988],
  ['stable-testnet', 2201],
  ['celo', 42220],
  ['flare', 14],
])

const V1_NAME_OF_CAIP2: ReadonlyMap<string, string> = new Map(
  [...V1_EVM_CHAIN_IDS].map(([name, chainId]) => [`eip155:${chainId}`, name]),
)

/** A served network as x402 v1 names it: its v1 name, none when its chain has none (or it is not an EVM chain). */
export const v1NameOf = (network: Pick<ServedNetwork, 'caip2'>): string | undefined =>
  V1_NAME_OF_CAIP2.get(network.caip2)

/** The v1 names and the served networks they denote, and how to read a v1 name onto a served one. */
export interface V1Networks {
  /** The served network's name (the spec dialect's, the one the rules speak) a v1 name denotes, if served. */
  readonly servedName: (v1Name: string) => string | undefined
  /** Whether a name is on x402 v1's list at all. */
  readonly isV1Name: (name: string) => boolean
  /** The v1 name of a served network (its spec name): the name an answer gives back. */
  readonly v1NameOfServed: (servedName: string) => string | undefined
  /** Every served network's v1 name, in the order served. */
  readonly served: ReadonlyArray<string>
}

export const v1NetworksOf = (networks: ReadonlyArray<ServedNetwork>): V1Networks => {
  const named = networks.flatMap((network) => {
    const v1Name = v1NameOf(network)
    return v1Name === undefined ? [] : [{ v1Name, servedName: network.name }]
  })
  const servedByV1 = new Map(named.map(({ v1Name, servedName }) => [v1Name, servedName]))
  const v1ByServed = new Map(named.map(({ v1Name, servedName }) => [servedName, v1Name]))
  return {
    servedName: (v1Name) => servedByV1.get(v1Name),
    isV1Name: (name) => V1_EVM_CHAIN_IDS.has(name),
    v1NameOfServed: (servedName) => v1ByServed.get(servedName),
    served: named.map(({ v1Name }) => v1Name),
  }
}
