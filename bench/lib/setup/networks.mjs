// The two-network mode's chains: the bench's own anvil (chain 31337) as network "alpha", and a second anvil (chain
// 31338, its own demo token) as "beta", with the same facilitator key funded and the same payers minted the token;
// the service then serves both from NETWORKS (docs/CONFIGURATION.md) instead of RPC_URL / ASSET_ADDRESS.
import { startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { say } from '../basics.mjs'
import { onCleanUp } from '../cleanup.mjs'
import { makeRpc } from '../rpc.mjs'
import { readTokenDomain } from './chain.mjs'

/** Token units minted to each payer on the second chain: what setUpChain gives them on the first. */
const PAYER_BALANCE = 10n ** 15n
const SECOND_CHAIN_ID = 31338

/**
 * `chain` (from setUpChain, its own anvil), its `rpc` and token `domain` as "alpha", and the second chain as "beta":
 * [{ name, caip2, chain, rpc, domain }].
 */
export const setUpNetworks = async ({ config, chain, rpc, domain }) => {
  if (!chain.own) throw new Error('--networks 2 starts two anvils of its own: unset RPC_URL')
  say(`starting a second anvil (chain ${SECOND_CHAIN_ID}: demo token, the same facilitator key, the payers funded)…`)
  const local = await startLocalChain({
    chainId: SECOND_CHAIN_ID,
    payers: 0,
    facilitatorPrivateKey: chain.facilitator.privateKey,
  })
  onCleanUp(() => local.stop())
  for (const payer of chain.payers) await local.mint(payer.address, PAYER_BALANCE)
  const second = {
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    token: local.tokenAddress,
    facilitator: chain.facilitator,
    payers: chain.payers,
    anvilPid: local.anvilPid,
    own: true,
    demoToken: true,
  }
  const secondRpc = makeRpc(second.rpcUrl, config.concurrency)
  onCleanUp(() => secondRpc.close())
  return [
    { name: 'alpha', caip2: `eip155:${chain.chainId}`, chain, rpc, domain },
    {
      name: 'beta',
      caip2: `eip155:${second.chainId}`,
      chain: second,
      rpc: secondRpc,
      domain: await readTokenDomain(second),
    },
  ]
}

/** The service's chain settings for `networks`: NETWORKS alone (RPC_URL, ASSET_ADDRESS, CONFIRMATIONS unset). */
export const networksEnv = (networks) => ({
  NETWORKS: JSON.stringify(
    networks.map(({ name, caip2, chain }) => ({
      name,
      caip2,
      rpcUrls: [chain.rpcUrl],
      confirmations: 0,
      tokens: [{ address: chain.token }],
    })),
  ),
})
