// `@x402-facilitator/adapters-chain/testing`: what other packages' tests (and the bench) deploy on anvil, kept out of
// the production entry point. Circle's USDC is compiled from test-fixtures/circle-usdc (SOURCE.md) by the build.
export {
  deployCircleUsdc,
  USDC_DECIMALS,
  USDC_EIP712_VERSION,
  USDC_NAME,
  USDC_SYMBOL,
  type CircleUsdc,
  type CircleUsdcRoles,
} from './circle-usdc-deployment.js'
export { fiatTokenProxyAbi, fiatTokenV2_2Abi } from '../../test-fixtures/generated/circle-usdc.js'
// A settler that answers like BatchSettler but reports items settled that it never paid (start-up must refuse it).
export { fakeSettlerAbi, fakeSettlerBytecode } from '../../test-fixtures/generated/fake-settler.js'
export { gasTrapWalletAbi, gasTrapWalletBytecode } from '../../test-fixtures/generated/gas-trap-wallet.js'
export { gasDodgeWalletAbi, gasDodgeWalletBytecode } from '../../test-fixtures/generated/gas-dodge-wallet.js'
// A proxy in front of a node's RPC URL, which a test closes to kill "the node" behind one URL (RPC failover).
export { deadPort, startRpcProxy, type ProxiedCall, type ProxyAnswer, type RpcProxy } from './rpc-proxy.js'
// Permit2 and x402's Permit2 proxies at their canonical addresses (test-fixtures/permit2, x402-permit2-proxies:
// SOURCE.md), and the demo token that can only be paid through them (EIP-2612, no EIP-3009).
export {
  deployPermit2Suite,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
  type Permit2Suite,
} from './permit2-suite-deployment.js'
export { permit2Abi } from '../../test-fixtures/generated/permit2.js'
export {
  x402ExactPermit2ProxyAbi,
  x402UptoPermit2ProxyAbi,
} from '../../test-fixtures/generated/x402-permit2-proxies.js'
export {
  deployDemoUsdt,
  DEMO_USDT_DECIMALS,
  DEMO_USDT_EIP712_VERSION,
  DEMO_USDT_NAME,
  DEMO_USDT_SYMBOL,
  type DemoUsdt,
} from './demo-usdt-deployment.js'
export { demoUsdtAbi } from '../generated/demo-usdt.js'
// Dev mode's Permit2 set-up: the suite, DemoUsdt funded, a payer's approval.
export { placeLocalPermit2, type LocalPermit2, type LocalPermit2Options } from './local-permit2.js'
// The local chain of dev mode and of the tests: anvil, the demo tokens and settler deployed, payers funded.
export { startAnvil, resolveAnvilBinary, type AnvilProcess, type StartAnvilOptions } from './anvil-process.js'
export {
  startLocalChain,
  type LocalAccount,
  type LocalChain,
  type LocalToken,
  type StartLocalChainOptions,
} from './local-chain.js'
export type { LocalSmartWallet, LocalSmartWallets } from './local-smart-wallets.js'
