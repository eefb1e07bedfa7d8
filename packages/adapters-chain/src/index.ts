export {
  makeChain,
  type Chain,
  type ChainToken,
  type NetworkConfig,
  type SigningSubmitter,
  type TokenConfig,
} from './chain.js'
export { makeSigningKeyCore, type SigningKeyCore } from './signing-key-core.js'
export type { ChainReadiness } from './chain-readiness.js'
export type { Permit2Problem } from './permit2-readiness.js'
export { eip155ChainId, eip155Network } from './caip2.js'
export { settlerAllows, type SettlerToCheck } from './settler-check.js'
export {
  makeChainRpc,
  rpcEndpointLabel,
  type ChainRpc,
  type ChainRpcOptions,
  type RpcUrlEvent,
  type RpcUrlStatus,
} from './chain-rpc.js'
export { makeRpcTokenReader, type RpcTokenReader } from './rpc-token-reader.js'
export { makeItemGasLimitReader, settlerTrialGas } from './settler-batch.js'
export { makeSecp256k1SignatureVerifier, recoverAddress } from './secp256k1-signature-verifier.js'
export { makeErc1271Check, type Erc1271Check } from './erc1271-check.js'
export {
  makeErc6492SignatureCheck,
  type Erc6492SignatureCheck,
  type Erc6492CheckOptions,
} from './erc6492-signature-check.js'
export {
  makeErc6492Validation,
  ERC6492_FACTORY_GAS,
  type Erc6492Validation,
  type Erc6492Verdict,
} from './erc6492-validation.js'
export {
  transferCall,
  CANONICAL_MULTICALL3_ADDRESS,
  type TransferAddresses,
  type TransferCall,
} from './transfer-call.js'
export { MULTICALL3_SETTLE_GAS_LIMIT } from './transfer-gas-limit.js'
export {
  makeRpcTransferSubmitter,
  makeTokenTransferSubmitter,
  type RpcTransferSubmitter,
  type RpcTransferSubmitterOptions,
  type SigningKeyOptions,
  type TokenSubmitterOptions,
} from './rpc-transfer-submitter.js'
export type { ReceiptMode } from './sync-send.js'
export { makeEip55AddressChecksum } from './eip55-address-checksum.js'
export { makeTransferAuthorizationDigest, TRANSFER_WITH_AUTHORIZATION_TYPE } from './transfer-authorization-digest.js'
export {
  signTransferAuthorization,
  wrapErc6492Signature,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  type SignTransferAuthorizationParameters,
} from './sign-transfer-authorization.js'
export {
  signPermit2Payment,
  type Permit2PaymentRequirements,
  type SignPermit2PaymentParameters,
} from './sign-permit2-payment.js'
export { accountOfKey, signedGasLimit } from './transaction-signer.js'
export {
  makeSettlementAttestor,
  RECEIPT_DOMAIN,
  SETTLEMENT_RECEIPT_TYPES,
  type AttestorOptions,
} from './settlement-attestor.js'
export { makeNonceAllocator, type NonceAllocator } from './nonce-allocator.js'
export { classifyRpcError, type RpcFailure } from './rpc-failure.js'
export { startAnvil, resolveAnvilBinary, type AnvilProcess, type StartAnvilOptions } from './anvil-process.js'
export {
  startLocalChain,
  type LocalAccount,
  type LocalChain,
  type LocalToken,
  type StartLocalChainOptions,
} from './local-chain.js'
export type { LocalSmartWallet, LocalSmartWallets } from './local-smart-wallets.js'
export { eip3009TokenAbi } from './eip3009-token-abi.js'
export { demoUsdAbi, demoUsdBytecode } from './generated/demo-usd.js'
export { demoSmartWalletAbi, demoSmartWalletBytecode } from './generated/demo-smart-wallet.js'
export { demoSmartWalletFactoryAbi, demoSmartWalletFactoryBytecode } from './generated/demo-smart-wallet-factory.js'
export { multicall3Abi, multicall3Bytecode } from './generated/multicall3.js'
export {
  deploySettler,
  SettlerDeploymentError,
  SETTLER_ITEM_GAS_LIMIT,
  type SettlerDeployment,
  type SettlerDeploymentParameters,
} from './settler-deployment.js'
export { batchSettlerAbi, batchSettlerBytecode } from './generated/batch-settler.js'
export { readSettlerCode, type SettlerCode } from './settler-code.js'
export { makeChainBlocks } from './chain-blocks.js'
export { measureBlockSeconds } from './block-interval.js'
export {
  permit2Digest,
  verifyPermit2Signature,
  verifyPermit2SignatureByKey,
  type Permit2Domain,
} from './permit2-digest.js'
