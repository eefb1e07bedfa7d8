import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import type { LocalChain } from '../src/testing/local-chain.js'
import { deployCircleUsdc } from '../src/testing/circle-usdc-deployment.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { mined, tokenCall, unlockedAccounts } from './demo-token-calls.js'
import { right } from './fixtures.js'

/** What a test does to the token as its roles: the same for DemoUsd and Circle's USDC. */
export interface TokenUnderTest {
  readonly address: Address
  readonly domain: Eip712Domain
  readonly mint: (to: Address, value: bigint) => Promise<void>
  readonly blacklist: (account: Address) => Promise<void>
  readonly unBlacklist: (account: Address) => Promise<void>
  readonly pause: () => Promise<void>
  readonly unpause: () => Promise<void>
}

const withDomain = async (rpc: ChainRpc, token: Omit<TokenUnderTest, 'domain'>): Promise<TokenUnderTest> => ({
  ...token,
  domain: await right(makeRpcTokenReader(rpc, token.address).domain),
})

export const demoUsdUnderTest = async (rpc: ChainRpc, chain: LocalChain): Promise<TokenUnderTest> => {
  const [owner] = await unlockedAccounts(rpc)
  const asOwner = (functionName: string, args: ReadonlyArray<unknown> = []) =>
    mined(rpc, tokenCall(chain.tokenAddress, owner!, functionName, args)).then(() => {})
  return withDomain(rpc, {
    address: chain.tokenAddress,
    mint: chain.mint,
    blacklist: (account) => asOwner('blacklist', [account]),
    unBlacklist: (account) => asOwner('unBlacklist', [account]),
    pause: () => asOwner('pause'),
    unpause: () => asOwner('unpause'),
  })
}

export const circleUsdcUnderTest = async (rpc: ChainRpc): Promise<TokenUnderTest> =>
  withDomain(rpc, await deployCircleUsdc(rpc))

export const TOKENS: ReadonlyArray<readonly [string, (rpc: ChainRpc, chain: LocalChain) => Promise<TokenUnderTest>]> = [
  ['DemoUsd', demoUsdUnderTest],
  ["Circle's USDC (FiatTokenV2_2)", (rpc) => circleUsdcUnderTest(rpc)],
]
