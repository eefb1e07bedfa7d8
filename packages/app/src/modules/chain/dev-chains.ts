import { placeLocalPermit2, startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import type { Config } from '../../config.js'
import { accountOf } from '../../facilitator-keys.js'
import type { ResourceStack } from '../../resource-stack.js'

/** Dev mode's two chains: the first as one network always was, the second with a EURC-like token beside. */
const DEV_CHAINS = [
  { chainId: 31337, moreTokens: [] },
  { chainId: 31338, moreTokens: [{ name: 'Demo EUR', symbol: 'DEUR' }] },
] as const

/** What each demo payer holds of each demo token: startLocalChain's default, 1 000 tokens of 6 decimals. */
const DEV_PAYER_UNITS = 1_000_000_000n

/** No network configured: dev mode's local chains, each with demo tokens and funded payers. */
export const startDevChains = async (config: Config, resources: ResourceStack, progress: (line: string) => void) => {
  progress(`dev mode: starting ${DEV_CHAINS.length} local chains (anvil)…`)
  // Dev mode keeps its own key unless a key pool is given (docs/ARCHITECTURE.md §5.8): then those keys, funded, each a settler.
  const pool =
    config.FACILITATOR_PRIVATE_KEYS !== undefined || config.FACILITATOR_PRIVATE_KEYS_FILE !== undefined
      ? config.facilitatorKeys
      : []
  const first = await startLocalChain({
    chainId: DEV_CHAINS[0].chainId,
    payers: config.DEMO_PAYERS,
    settler: config.BATCHING === 'on',
    facilitatorPrivateKey: pool[0],
    moreFacilitatorKeys: pool.slice(1),
  })
  resources.push('local chain', first.stop)
  // The same signing key on the second chain (the usual set-up of one key on every network), and the same payers, funded
  // in each of its tokens: `npm run demo -- --network` pays from them on either.
  const second = await startLocalChain({
    chainId: DEV_CHAINS[1].chainId,
    payers: 0,
    settler: config.BATCHING === 'on',
    facilitatorPrivateKey: first.facilitator.privateKey,
    moreFacilitatorKeys: pool.slice(1),
    moreTokens: DEV_CHAINS[1].moreTokens,
  })
  resources.push('second local chain', second.stop)
  for (const payer of first.payers)
    for (const token of [second, ...second.moreTokens]) await token.mint(payer.address, DEV_PAYER_UNITS)
  // README, dev mode: Permit2 and the x402 proxies on both chains; DUSDT (Permit2 only) on the first,
  // approved to Permit2 by the first payer alone (the others pay by a sponsored EIP-2612 permit).
  const payers = first.payers.map((payer) => payer.address)
  const [firstPermit2] = await Promise.all([
    placeLocalPermit2(first.rpcUrl, { demoUsdt: { payers, units: DEV_PAYER_UNITS, approving: payers.slice(0, 1) } }),
    placeLocalPermit2(second.rpcUrl),
  ])
  for (const chain of [first, second]) {
    const tokens = [{ symbol: chain.tokenSymbol, address: chain.tokenAddress }, ...chain.moreTokens]
    const deployed = tokens.map((t) => `${t.symbol} deployed at ${t.address}`).join(', ')
    progress(`dev mode: chain eip155:${chain.chainId}: demo token ${deployed}; ${first.payers.length} payers funded`)
  }
  progress(
    first.settlerAddress
      ? `dev mode: batch settler deployed at ${first.settlerAddress}`
      : 'dev mode: BATCHING=off, no batch settler',
  )
  const { factory, deployed, counterfactual } = first.smartWallets
  progress(
    `dev mode: demo smart wallets funded: ${deployed.address} (deployed), ${counterfactual.address} (not yet: ERC-6492 through the demo factory ${factory})`,
  )
  if (pool.length > 1) progress(`dev mode: ${pool.length} facilitator keys funded: ${pool.map(accountOf).join(', ')}`)
  progress(
    `dev mode: Permit2 and the x402 proxies at their canonical addresses on both chains; demo token DUSDT (Permit2 ` +
      `only) deployed at ${firstPermit2.demoUsdt}, approved to Permit2 by ${payers[0] ?? 'no payer'}`,
  )
  const demoUsdt: ReadonlyArray<Address | undefined> = [firstPermit2.demoUsdt, undefined]
  return { chains: [first, second], demoUsdt, privateKeys: pool.length > 0 ? pool : [first.facilitator.privateKey] }
}
