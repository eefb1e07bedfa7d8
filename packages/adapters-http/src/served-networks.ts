import type { NetworkToken, ServedNetwork, ServedToken } from '@x402-facilitator/domain'

/** The served network a name denotes: its spec name or its CAIP-2 id. */
export const servedNetworkNamed = (networks: ReadonlyArray<ServedNetwork>, name: string): ServedNetwork | undefined =>
  networks.find((network) => network.name === name || network.caip2 === name)

/** The first network served: the default of every answer that names no served network. */
export const firstNetwork = (networks: ReadonlyArray<ServedNetwork>): ServedNetwork => {
  const first = networks[0]
  if (first === undefined || first.tokens[0] === undefined) {
    throw new Error('the HTTP app needs at least one network with at least one token')
  }
  return first
}

/** What the HTTP app is given to serve, checked once: each network named once (either way) and with a token. */
export const checkServed = (networks: ReadonlyArray<ServedNetwork>): void => {
  firstNetwork(networks)
  const seen = new Set<string>()
  for (const { name, caip2, tokens } of networks) {
    if (tokens.length === 0) throw new Error(`network ${name} (${caip2}) is served with no token`)
    for (const id of new Set([name, caip2])) {
      if (seen.has(id)) throw new Error(`network ${id} is served twice`)
      seen.add(id)
    }
  }
}

/**
 * The token whose symbol and decimals word a refusal: the one the requirements name when it is served, else the first
 * of their network, else the first network's first (as a one-token facilitator always words them).
 */
export const tokenNamedBy = (
  networks: ReadonlyArray<ServedNetwork>,
  requirements: { readonly network: string; readonly asset: string },
): ServedToken => {
  const network = servedNetworkNamed(networks, requirements.network)
  if (network === undefined) return firstNetwork(networks).tokens[0]!
  // Hex is one address in any case; base58's case is part of the address.
  const spelled = (address: string) => (/^0x/i.test(address) ? address.toLowerCase() : address)
  const asset = spelled(requirements.asset)
  return network.tokens.find((token) => spelled(token.address) === asset) ?? network.tokens[0]!
}

/**
 * Every token a network serves, each with how it may be paid (its transfer methods, when its mechanism names them),
 * as a refusal of another token lists them; none for a network not served.
 */
export const networkTokensOf = (networks: ReadonlyArray<ServedNetwork>, name: string): NetworkToken[] | undefined =>
  servedNetworkNamed(networks, name)?.tokens.map(({ address, symbol, transferMethods }) => ({
    address,
    symbol,
    ...(transferMethods === undefined ? {} : { how: transferMethods.join(' or ') }),
  }))
