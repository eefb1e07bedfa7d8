import { parseCaip2 } from '@x402-facilitator/domain'

/** The CAIP-2 name of an EVM chain. */
export const eip155Network = (chainId: number | bigint): string => `eip155:${chainId}`

/** The chain id of an `eip155:<decimal>` network; undefined for any other. */
export const eip155ChainId = (network: string): number | undefined => {
  const parsed = parseCaip2(network)
  return parsed?.namespace === 'eip155' && /^[0-9]+$/.test(parsed.reference) ? Number(parsed.reference) : undefined
}
