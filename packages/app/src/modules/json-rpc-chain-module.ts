import { makeChain } from '@x402-facilitator/adapters-chain'
import type { OpenChain } from './chain-module.js'

/**
 * The chain through adapters-chain's JSON-RPC client: one network's adapters over one shared RPC access. The one file
 * of the app that knows which chain client it runs on.
 */
export const openJsonRpcChain: OpenChain = ({ config, logger, infrastructure, onHttpRequest }) =>
  makeChain({
    rpcUrl: infrastructure.rpcUrl,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    onHttpRequest,
    // Checked at start-up (the policy module's checks) before any settle is served.
    tokens: [{ address: infrastructure.tokenAddress, settler: infrastructure.settlerAddress }],
    privateKeys: infrastructure.facilitatorPrivateKeys,
    accounts: infrastructure.facilitators,
    multicall3: infrastructure.multicall3,
    erc6492Factories: infrastructure.erc6492Factories,
    receiptMode: config.RECEIPT_MODE,
    maxFeePerGas: config.MAX_FEE_PER_GAS,
    // A success the token did not log is counted failed (docs/ARCHITECTURE.md §5.7); the contract called lied.
    onUnbackedSuccess: (facilitator, detail) =>
      logger.error({ facilitator, detail }, 'a receipt claims a payment the token did not log: counted failed'),
  })
