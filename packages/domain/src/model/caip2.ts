/** A CAIP-2 chain id (`namespace:reference`, e.g. `eip155:8453`, `solana:5eykt4…`), split. */
export interface Caip2 {
  readonly namespace: string
  readonly reference: string
}

/** `network` split at its first `:`; undefined when it has none (an x402 v1 name such as `base-sepolia`). */
export const parseCaip2 = (network: string): Caip2 | undefined => {
  const at = network.indexOf(':')
  return at < 0 ? undefined : { namespace: network.slice(0, at), reference: network.slice(at + 1) }
}
