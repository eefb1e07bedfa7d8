import {
  makeChainBlocks,
  makeChainRpc,
  makeErc1271Check,
  makeErc6492SignatureCheck,
  makeEip55AddressChecksum,
  makeSecp256k1SignatureVerifier,
  makeRpcTokenReader,
  makeRpcTransferSubmitter,
  makeItemGasLimitReader,
  settlerTrialGas,
} from '@x402-facilitator/adapters-chain'
import * as E from 'fp-ts/lib/Either.js'
import { ContainerModule } from 'inversify'
import { instrumented } from '../instrumented.js'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-chain` implements, over one shared RPC access; the calls that reach the node are timed. */
export const chainModule = new ContainerModule(({ bind }) => {
  bind(tokens.ChainRpc).toDynamicValue((context) => {
    const rpcRequests = context.get(tokens.RpcRequestCounter)
    return makeChainRpc({
      rpcUrl: context.get(tokens.Infrastructure).rpcUrl,
      rpcTimeoutMs: context.get(tokens.Config).RPC_TIMEOUT_MS,
      onHttpRequest: () => rpcRequests.inc(),
    })
  })
  bind(tokens.RpcTokenReader).toDynamicValue((context) => {
    const { tokenAddress, facilitator, multicall3, erc6492Factories } = context.get(tokens.Infrastructure)
    // With a settler, a payment that may be batched is tried with the gas its item gets (docs/ARCHITECTURE.md §5.7).
    const { settlerAddress } = context.get(tokens.Infrastructure)
    const itemGasLimit = settlerAddress === undefined ? undefined : makeItemGasLimitReader(context.get(tokens.ChainRpc), settlerAddress)
    const trialGasCapFor = itemGasLimit === undefined ? {} : { trialGasCapFor: settlerTrialGas(itemGasLimit) }
    return makeRpcTokenReader(context.get(tokens.ChainRpc), tokenAddress, { facilitator, multicall3, erc6492Factories, ...trialGasCapFor })
  })
  bind(tokens.SettlerItemGasLimit).toDynamicValue(async (context) => {
    const { settlerAddress } = context.get(tokens.Infrastructure)
    if (settlerAddress === undefined) return undefined
    // After the start-up checks: the settler has code and settles our token (settler-check.ts).
    await context.getAsync(tokens.CheckedChain)
    const read = await makeItemGasLimitReader(context.get(tokens.ChainRpc), settlerAddress)()
    if (E.isLeft(read)) throw new Error(`start-up: ${read.left.reason}`)
    return read.right
  })
  bind(tokens.TokenReader).toDynamicValue((context) => instrumented(context.get(tokens.RpcTokenReader), context.get(tokens.Observability).chainCalls))
  bind(tokens.SignatureVerifier).toDynamicValue((context) => {
    const rpc = context.get(tokens.ChainRpc)
    const erc1271 = makeErc1271Check(rpc)
    const erc6492 = makeErc6492SignatureCheck({ rpc, erc1271, allowedFactories: context.get(tokens.Infrastructure).erc6492Factories })
    return makeSecp256k1SignatureVerifier(context.get(tokens.RpcTokenReader).domain, erc1271, erc6492)
  })
  // One per signing key (docs/ARCHITECTURE.md §5.8): each its own nonce allocator, broadcast queue and receipt watcher.
  bind(tokens.TransferSubmitters).toDynamicValue((context) => {
    const config = context.get(tokens.Config)
    const { tokenAddress, facilitatorPrivateKeys, facilitators, erc6492Factories, multicall3, settlerAddress } = context.get(tokens.Infrastructure)
    const rpc = context.get(tokens.ChainRpc)
    const { chainCalls } = context.get(tokens.Observability)
    const logger = context.get(tokens.Logger)
    return facilitatorPrivateKeys.map((privateKey, i) => {
      const submitter = makeRpcTransferSubmitter({
        // Checked at start-up (settler-check.ts) before any settle is served.
        settler: settlerAddress,
        rpc,
        token: tokenAddress,
        multicall3,
        erc6492Factories,
        privateKey,
        receiptMode: config.RECEIPT_MODE,
        maxFeePerGas: config.MAX_FEE_PER_GAS,
        // A success the token did not log is counted failed (docs/ARCHITECTURE.md §5.7); the contract called lied.
        onUnbackedSuccess: (detail) => logger.error({ facilitator: facilitators[i], detail }, 'a receipt claims a payment the token did not log: counted failed'),
      })
      return { account: facilitators[i]!, submitter: instrumented(submitter, chainCalls) }
    })
  })
  bind(tokens.AddressChecksum).toDynamicValue(() => makeEip55AddressChecksum())
  bind(tokens.ChainBlocks).toDynamicValue((context) => instrumented(makeChainBlocks(context.get(tokens.ChainRpc)), context.get(tokens.Observability).chainCalls))
})
