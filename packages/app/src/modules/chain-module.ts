import { makeChain } from '@x402-facilitator/adapters-chain'
import { ContainerModule } from 'inversify'
import { instrumented } from '../instrumented.js'
import * as tokens from '../tokens.js'

/**
 * The chain's side (docs/ARCHITECTURE.md §1): one network's adapters made by `makeChain` over one shared RPC access,
 * the ports the use cases call timed. Swapping the chain client is replacing this module.
 */
export const chainModule = new ContainerModule(({ bind }) => {
  bind(tokens.Chain).toDynamicValue((context) => {
    const config = context.get(tokens.Config)
    const infrastructure = context.get(tokens.Infrastructure)
    const rpcRequests = context.get(tokens.RpcRequestCounter)
    const logger = context.get(tokens.Logger)
    return makeChain({
      rpcUrl: infrastructure.rpcUrl,
      rpcTimeoutMs: config.RPC_TIMEOUT_MS,
      onHttpRequest: () => rpcRequests.inc(),
      token: infrastructure.tokenAddress,
      privateKeys: infrastructure.facilitatorPrivateKeys,
      accounts: infrastructure.facilitators,
      multicall3: infrastructure.multicall3,
      erc6492Factories: infrastructure.erc6492Factories,
      // Checked at start-up (the policy module's checks) before any settle is served.
      settler: infrastructure.settlerAddress,
      receiptMode: config.RECEIPT_MODE,
      maxFeePerGas: config.MAX_FEE_PER_GAS,
      // A success the token did not log is counted failed (docs/ARCHITECTURE.md §5.7); the contract called lied.
      onUnbackedSuccess: (facilitator, detail) =>
        logger.error({ facilitator, detail }, 'a receipt claims a payment the token did not log: counted failed'),
    })
  })
  bind(tokens.SettlerItemGasLimit).toDynamicValue(async (context) => {
    // After the start-up checks: the settler has code and settles our token.
    await context.getAsync(tokens.CheckedChain)
    return context.get(tokens.Chain).settlerItemGasLimit()
  })
  bind(tokens.TokenReader).toDynamicValue((context) =>
    instrumented(context.get(tokens.Chain).tokenReader, context.get(tokens.Observability).chainCalls),
  )
  bind(tokens.SignatureVerifier).toDynamicValue((context) => context.get(tokens.Chain).signatureVerifier)
  // One per signing key (docs/ARCHITECTURE.md §5.8): each its own nonces, broadcast queue and receipt watcher.
  bind(tokens.TransferSubmitters).toDynamicValue((context) => {
    const { chainCalls } = context.get(tokens.Observability)
    return context.get(tokens.Chain).submitters.map(({ account, submitter }) => ({
      account,
      submitter: instrumented(submitter, chainCalls),
    }))
  })
  bind(tokens.AddressChecksum).toDynamicValue((context) => context.get(tokens.Chain).addressChecksum)
  bind(tokens.ChainBlocks).toDynamicValue((context) =>
    instrumented(context.get(tokens.Chain).chainBlocks, context.get(tokens.Observability).chainCalls),
  )
})
