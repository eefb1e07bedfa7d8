/** A CAIP-2 chain id (`namespace:reference`, e.g. `eip155:8453`), split. */
export interface Caip2 {
  readonly namespace: string
  readonly reference: string
}

/** `network` split at its first `:`; undefined when it has none (an x402 v1 name such as `base-sepolia`). */
export const parseCaip2 = (network: string): Caip2 | undefined => {
  const at = network.indexOf(':')
  return at < 0 ? undefined : { namespace: network.slice(0, at), reference: network.slice(at + 1) }
}

/** The CAIP-2 name of an EVM chain. */
export const eip155Network = (chainId: number | bigint): string => `eip155:${chainId}`

/** The chain id of an `eip155:<decimal>` network; undefined for any other. */
export const eip155ChainId = (network: string): number | undefined => {
  const parsed = parseCaip2(network)
  return parsed?.namespace === 'eip155' && /^[0-9]+$/.test(parsed.reference) ? Number(parsed.reference) : undefined
}
