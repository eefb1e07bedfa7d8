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
