// The permit2 phase's set-up: Permit2 and x402's proxies at their canonical addresses on the bench's chain, DemoUsdt
// (EIP-2612, no EIP-3009: paid through Permit2 only) minted to every payer, each of whom approves Permit2; then the
// service serves it beside the EIP-3009 demo token, on the same network (NETWORKS, docs/CONFIGURATION.md).
import { placeLocalPermit2 } from '@x402-facilitator/adapters-chain/testing'
import { say } from '../basics.mjs'
import { readTokenDomain } from './chain.mjs'

/** DemoUsdt units minted to each payer: what setUpChain gives them of the demo token. */
const PAYER_UNITS = 10n ** 15n

/** { token (DemoUsdt, lower-case), domain (its EIP-712 domain) } */
export const setUpPermit2 = async (chain) => {
  if (!chain.demoToken) throw new Error('the permit2 phase deploys its own token: not with ASSET_ADDRESS')
  say('placing Permit2 and the x402 proxies, deploying DUSDT (Permit2 only), every payer approving Permit2…')
  const payers = chain.payers.map((p) => p.address)
  const placed = await placeLocalPermit2(chain.rpcUrl, { demoUsdt: { payers, units: PAYER_UNITS, approving: payers } })
  const token = placed.demoUsdt.toLowerCase()
  return { token, domain: await readTokenDomain({ ...chain, token }) }
}

/**
 * The service's chain settings with the Permit2 token: one network (named by its CAIP-2 id, as the bench's payments
 * name it) serving the demo token (EIP-3009) and DUSDT (Permit2); RPC_URL, ASSET_ADDRESS and CONFIRMATIONS unset.
 */
export const permit2NetworkEnv = (chain, permit2) => ({
  NETWORKS: JSON.stringify([
    {
      caip2: `eip155:${chain.chainId}`,
      rpcUrls: [chain.rpcUrl],
      confirmations: 0,
      tokens: [{ address: chain.token }, { address: permit2.token, transferMethods: ['permit2'] }],
    },
  ]),
})
