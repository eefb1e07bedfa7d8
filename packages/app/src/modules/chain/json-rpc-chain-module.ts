import { makeChain } from '@x402-facilitator/adapters-chain'
import { permit2Of } from '../../permit2-network.js'
import type { OpenChain } from './chain-module.js'

/**
 * The chain through adapters-chain's JSON-RPC client: one network's adapters over one shared RPC access. The one file
 * of the app that knows which chain client it runs on.
 */
export const openJsonRpcChain: OpenChain = ({ config, logger, infrastructure }) => {
  const { network } = infrastructure
  const permit2 = permit2Of(network.tokens)
  const log = logger.child({ network: config.NETWORK_ID ?? config.NETWORK_CAIP2 })
  return makeChain({
    rpcUrls: network.rpcUrls,
    // The first URL's chain is the one every other URL must serve (docs/ARCHITECTURE.md §5.3); start-up holds it to
    // the configuration's (open-networks.ts), in words naming the setting.
    onUrlEvent: (event) => {
      if (event.kind === 'primary') log.info({ rpc: event.label }, 'RPC: this URL is now the primary')
      else if (event.kind === 'failed')
        log.warn({ rpc: event.label, reason: event.reason, retryInMs: event.retryInMs }, 'RPC: a URL failed')
      else
        log.error(
          { rpc: event.label, chainId: event.chainId, expected: event.expected },
          'RPC: a URL serves another chain: never used',
        )
    },
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    // Each token with its settler, checked at start-up (the policy module's checks) before any settle is served.
    tokens: network.tokens.map((token) => ({ address: token.address, settler: token.settlerAddress })),
    privateKeys: infrastructure.facilitatorPrivateKeys,
    accounts: infrastructure.facilitators,
    multicall3: network.multicall3,
    erc6492Factories: network.erc6492Factories,
    // Where the Permit2 payments of its tokens go (canonical when unset; checked at start-up, open-networks.ts).
    ...(permit2 === undefined ? {} : { permit2 }),
    receiptMode: config.RECEIPT_MODE,
    maxFeePerGas: config.MAX_FEE_PER_GAS,
    // A nonce handed out is broadcast, given back or set aside once its journal write answered or its guarded release
    // did: each within DB_TIMEOUT_MS. Past both, the send above it goes (broadcast-queue.ts).
    broadcastHoldMs: 2 * config.DB_TIMEOUT_MS,
    stalledAfterMs: config.STALL_REPLACE_MS,
    // A success the token did not log is counted failed (docs/ARCHITECTURE.md §5.7); the contract called lied.
    onUnbackedSuccess: (facilitator, detail) =>
      logger.error({ facilitator, detail }, 'a receipt claims a payment the token did not log: counted failed'),
  })
}
