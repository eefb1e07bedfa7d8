/** The CAIP-2 name of an EVM chain. */
export const eip155Network = (chainId: number | bigint): string => `eip155:${chainId}`

const EIP155_NETWORK = /^eip155:([0-9]+)$/

/** The chain id of an `eip155:<decimal>` network; undefined for any other. */
export const eip155ChainId = (network: string): number | undefined => {
  const reference = EIP155_NETWORK.exec(network)?.[1]
  return reference === undefined ? undefined : Number(reference)
}
