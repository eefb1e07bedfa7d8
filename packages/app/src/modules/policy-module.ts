import { ContainerModule } from 'inversify'
import { checkChain } from '../start-up-checks.js'
import * as tokens from '../tokens.js'

/** What the chain answers at start-up, and the policy made of it and of the configuration: both wait for the node. */
export const policyModule = new ContainerModule(({ bind }) => {
  bind(tokens.CheckedChain).toDynamicValue((context) => {
    const { erc6492Factories, multicall3 } = context.get(tokens.Infrastructure)
    return checkChain(context.get(tokens.ChainRpc), context.get(tokens.ViemTokenReader), context.get(tokens.Config).NETWORK_ID, {
      factories: erc6492Factories,
      multicall3,
    })
  })
  bind(tokens.FacilitatorPolicy).toDynamicValue(async (context) => {
    const checked = await context.getAsync(tokens.CheckedChain)
    const config = context.get(tokens.Config)
    const { tokenAddress, facilitator } = context.get(tokens.Infrastructure)
    return {
      network: config.NETWORK_ID ?? checked.caip2,
      asset: { address: tokenAddress, symbol: config.ASSET_SYMBOL ?? checked.token.symbol, decimals: checked.token.decimals },
      facilitator,
      validityMarginSeconds: BigInt(config.VALIDITY_MARGIN_SECONDS),
      receiptTimeoutMs: config.RECEIPT_TIMEOUT_SECONDS * 1000,
      minAmount: config.MIN_AMOUNT,
    }
  })
})
