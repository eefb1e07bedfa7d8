import type { ChainRpc, ViemTokenReader } from '@x402-facilitator/adapters-chain'
import type { Eip712Domain, TokenInfo } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { nodeQuantity } from './node-quantity.js'

/** What the chain said at start-up: its CAIP-2 name, the token's symbol and decimals, and its EIP-712 domain. */
export interface CheckedChain {
  readonly caip2: string
  readonly token: TokenInfo
  readonly domain: Eip712Domain
}

/** docs/ARCHITECTURE.md §5: the RPC's chain is the configured network's, and the token answers EIP-3009. */
export const checkChain = async (rpc: ChainRpc, tokenReader: ViemTokenReader, networkId: string | undefined): Promise<CheckedChain> => {
  const chainId = Number(nodeQuantity(await rpc.read('eth_chainId'), 'eth_chainId'))
  const caip2 = `eip155:${chainId}`
  if (networkId !== undefined && networkId.startsWith('eip155:') && networkId !== caip2) {
    throw new Error(`configuration: NETWORK_ID is ${networkId} but RPC_URL serves ${caip2}`)
  }
  const probe = await tokenReader.payerState('0x0000000000000000000000000000000000000001', `0x${'00'.repeat(32)}`)()
  if (E.isLeft(probe)) throw new Error(`the token does not answer EIP-3009 authorizationState/balanceOf: ${probe.left.reason}`)
  const info = await tokenReader.tokenInfo()
  if (E.isLeft(info)) throw new Error(`the token does not answer symbol()/decimals(): ${info.left.reason}`)
  const domain = await tokenReader.domain()
  if (E.isLeft(domain)) throw new Error(`the token's EIP-712 domain could not be read: ${domain.left.reason}`)
  return { caip2, token: info.right, domain: domain.right }
}
