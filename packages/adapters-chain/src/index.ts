export { makeChainRpc, type ChainRpc, type ChainRpcOptions } from './chain-rpc.js'
export { makeChainAdapters, type ChainAdapters, type ChainAdaptersOptions } from './chain-adapters.js'
export { makeViemTokenReader, type ViemTokenReader } from './viem-token-reader.js'
export { makeSecp256k1SignatureVerifier, recoverAddress } from './secp256k1-signature-verifier.js'
export {
  makeViemTransferSubmitter,
  type ReceiptMode,
  type ViemTransferSubmitter,
  type ViemTransferSubmitterOptions,
} from './viem-transfer-submitter.js'
export { makeEip55AddressChecksum } from './eip55-address-checksum.js'
export { makeTransferAuthorizationDigest, TRANSFER_WITH_AUTHORIZATION_TYPE } from './transfer-authorization-digest.js'
export { signTransferAuthorization, TRANSFER_WITH_AUTHORIZATION_TYPES, type SignTransferAuthorizationParameters } from './sign-transfer-authorization.js'
export { makeNonceAllocator, type NonceAllocator } from './nonce-allocator.js'
export { classifyRpcError, type RpcFailure } from './rpc-failure.js'
export { startAnvil, resolveAnvilBinary, type AnvilProcess, type StartAnvilOptions } from './anvil-process.js'
export { startLocalChain, type LocalAccount, type LocalChain, type StartLocalChainOptions } from './local-chain.js'
export { demoUsdAbi, demoUsdBytecode } from './generated/demo-usd.js'
