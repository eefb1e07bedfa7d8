export {
  makeChain,
  type Chain,
  type ChainToken,
  type NetworkConfig,
  type SigningSubmitter,
  type TokenConfig,
} from './evm/chain.js'
export { makeSigningKeyCore, type SigningKeyCore } from './evm/submission/signing-key-core.js'
export type { ChainReadiness } from './evm/chain-readiness.js'
export type { Permit2Problem } from './evm/permit2/permit2-readiness.js'
export { eip155ChainId, eip155Network } from './evm/caip2.js'
export { settlerAllows, type SettlerToCheck } from './evm/settler/settler-check.js'
export {
  makeChainRpc,
  rpcEndpointLabel,
  type ChainRpc,
  type ChainRpcOptions,
  type RpcUrlEvent,
  type RpcUrlStatus,
} from './evm/rpc/chain-rpc.js'
export { makeRpcTokenReader, type RpcTokenReader } from './evm/token/rpc-token-reader.js'
export { makeItemGasLimitReader, settlerTrialGas } from './evm/settler/settler-batch.js'
export { makeSecp256k1SignatureVerifier, recoverAddress } from './evm/signing/secp256k1-signature-verifier.js'
export { makeErc1271Check, type Erc1271Check } from './evm/wallets/erc1271-check.js'
export {
  makeErc6492SignatureCheck,
  type Erc6492SignatureCheck,
  type Erc6492CheckOptions,
} from './evm/wallets/erc6492-signature-check.js'
export {
  makeErc6492Validation,
  ERC6492_FACTORY_GAS,
  type Erc6492Validation,
  type Erc6492Verdict,
} from './evm/wallets/erc6492-validation.js'
export {
  transferCall,
  CANONICAL_MULTICALL3_ADDRESS,
  type TransferAddresses,
  type TransferCall,
} from './evm/token/transfer-call.js'
export { MULTICALL3_SETTLE_GAS_LIMIT } from './evm/submission/transfer-gas-limit.js'
export {
  makeRpcTransferSubmitter,
  makeTokenTransferSubmitter,
  type RpcTransferSubmitter,
  type RpcTransferSubmitterOptions,
  type SigningKeyOptions,
  type TokenSubmitterOptions,
} from './evm/submission/rpc-transfer-submitter.js'
export type { ReceiptMode } from './evm/submission/sync-send.js'
export { makeEip55AddressChecksum } from './evm/signing/eip55-address-checksum.js'
export {
  makeTransferAuthorizationDigest,
  TRANSFER_WITH_AUTHORIZATION_TYPE,
} from './evm/signing/transfer-authorization-digest.js'
export {
  signTransferAuthorization,
  wrapErc6492Signature,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  type SignTransferAuthorizationParameters,
} from './evm/signing/sign-transfer-authorization.js'
export {
  signPermit2Payment,
  type Permit2PaymentRequirements,
  type SignPermit2PaymentParameters,
} from './evm/signing/sign-permit2-payment.js'
export { accountOfKey, signedGasLimit } from './evm/signing/transaction-signer.js'
export {
  makeSettlementAttestor,
  RECEIPT_DOMAIN,
  SETTLEMENT_RECEIPT_TYPES,
  type AttestorOptions,
} from './evm/receipts/settlement-attestor.js'
export { makeNonceAllocator, type NonceAllocator } from './evm/submission/nonce-allocator.js'
export { classifyRpcError, type RpcFailure } from './evm/rpc/rpc-failure.js'
export { eip3009TokenAbi } from './evm/token/eip3009-token-abi.js'
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
} from './evm/settler/settler-deployment.js'
export { batchSettlerAbi, batchSettlerBytecode } from './generated/batch-settler.js'
export { readSettlerCode, type SettlerCode } from './evm/settler/settler-code.js'
export { makeChainBlocks } from './evm/chain-blocks.js'
export { measureBlockSeconds } from './evm/block-interval.js'
export {
  permit2Digest,
  verifyPermit2Signature,
  verifyPermit2SignatureByKey,
  type Permit2Domain,
} from './evm/permit2/permit2-digest.js'
export { readSvmTransaction, type ReadSvmTransaction } from './svm/svm-transaction-reader.js'
export { associatedTokenAccounts } from './svm/svm-token-accounts.js'
export { makeSvmRpc, type SvmRpc, type SvmRpcOptions } from './svm/svm-rpc.js'
export { makeSvmChain } from './svm/svm-chain.js'
export { svmCodec } from './svm/svm-codec.js'
export { makeSvmFeePayer, svmFeePayerFromSecret, svmKeyPairFromSecret } from './svm/svm-fee-payer.js'
