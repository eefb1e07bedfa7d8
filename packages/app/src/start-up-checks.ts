import type { ChainAdapters } from '@x402-facilitator/adapters-chain'
import type { Address } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'

/** docs/ARCHITECTURE.md §5: the RPC's chain is the configured network's, and the token answers EIP-3009. */
export const checkChain = async (chain: ChainAdapters, networkId: string | undefined) => {
  const chainId = Number(BigInt((await chain.rpc.read('eth_chainId')) as string))
  const caip2 = `eip155:${chainId}`
  if (networkId !== undefined && networkId.startsWith('eip155:') && networkId !== caip2) {
    throw new Error(`configuration: NETWORK_ID is ${networkId} but RPC_URL serves ${caip2}`)
  }
  const probe = await chain.tokenReader.payerState('0x0000000000000000000000000000000000000001' as Address, `0x${'00'.repeat(32)}`)()
  if (E.isLeft(probe)) throw new Error(`the token does not answer EIP-3009 authorizationState/balanceOf: ${probe.left.reason}`)
  const info = await chain.tokenReader.tokenInfo()
  if (E.isLeft(info)) throw new Error(`the token does not answer symbol()/decimals(): ${info.left.reason}`)
  const domain = await chain.tokenReader.domain()
  if (E.isLeft(domain)) throw new Error(`the token's EIP-712 domain could not be read: ${domain.left.reason}`)
  return { chainId, caip2, token: info.right, domain: domain.right }
}
