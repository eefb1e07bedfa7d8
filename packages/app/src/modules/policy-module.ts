import { eip155ChainId } from './chain/chain-family.js'
import { ContainerModule } from 'inversify'
import { defaultConfirmations, defaultHeadPollMs } from '../finality-defaults.js'
import { transferMethodsOf } from '../permit2-network.js'
import { checkChain } from '../start-up-checks.js'
import * as tokens from '../tokens.js'
import { blockSecondsOf, defaultValidityMargin } from '../validity-margin.js'

/** What the chain answers at start-up (the batch settler too), and the policy made of it and of the configuration: all wait for the node. */
export const policyModule = new ContainerModule(({ bind }) => {
  bind(tokens.CheckedChain).toDynamicValue((context) => {
    const config = context.get(tokens.Config)
    const { erc6492Factories, multicall3, settlerAddress, tokenAddress, facilitators, devChain } = context.get(
      tokens.Infrastructure,
    )
    const settler = settlerAddress && {
      address: settlerAddress,
      setting: devChain ? "dev mode's settler" : 'SETTLER_ADDRESS',
      token: tokenAddress,
      accounts: facilitators,
      maxItems: config.BATCH_MAX_ITEMS,
      windowMs: config.BATCH_WINDOW_MS,
    }
    const { readiness } = context.get(tokens.Chain)
    return checkChain(
      { readiness, tokenReader: context.get(tokens.ChainToken).tokenReader },
      {
        networkId: config.NETWORK_ID,
        caip2: config.NETWORK_CAIP2,
        erc6492: { factories: erc6492Factories, multicall3 },
        settler,
        token: tokenAddress,
        transferMethods: transferMethodsOf(config),
      },
    )
  })
  // Checked with the chain: unset when batching is off (docs/ARCHITECTURE.md §5.7).
  bind(tokens.Settler).toDynamicValue(async (context) => (await context.getAsync(tokens.CheckedChain)).settler)
  bind(tokens.FacilitatorPolicy).toDynamicValue(async (context) => {
    const checked = await context.getAsync(tokens.CheckedChain)
    const config = context.get(tokens.Config)
    const { tokenAddress, facilitator, facilitators, servedNetworks, permit2 } = context.get(tokens.Infrastructure)
    // Rule 6's margin follows the chain's block time: two blocks (docs/ARCHITECTURE.md §3), unless configured.
    const chainId = eip155ChainId(checked.caip2)!
    const blockSeconds = await context.get(tokens.Chain).readiness.blockSeconds()
    const margin = config.VALIDITY_MARGIN_SECONDS ?? defaultValidityMargin(blockSecondsOf(blockSeconds, chainId))
    return {
      network: config.NETWORK_ID ?? checked.caip2,
      servedNetworks,
      asset: {
        address: tokenAddress,
        symbol: config.ASSET_SYMBOL ?? checked.token.symbol,
        decimals: checked.token.decimals,
        transferMethods: transferMethodsOf(config),
      },
      facilitator,
      validityMarginSeconds: BigInt(margin),
      receiptTimeoutMs: config.RECEIPT_TIMEOUT_SECONDS * 1000,
      minAmount: config.MIN_AMOUNT,
      // Rule P2: an upto witness names one of this replica's keys on the network (lower case, as `facilitators`).
      ...(permit2 && { permit2, uptoFacilitators: facilitators }),
    }
  })
  bind(tokens.FinalityPolicy).toDynamicValue(async (context) => {
    const chainId = eip155ChainId((await context.getAsync(tokens.CheckedChain)).caip2)!
    const config = context.get(tokens.Config)
    const confirmations = config.CONFIRMATIONS ?? defaultConfirmations(chainId)
    return {
      confirmations,
      // A final row is still checked while a reorg of twice its depth (and at least 16 blocks) could reach it.
      violationWatchDepth: Math.max(2 * confirmations, 16),
      // One JSON-RPC batch (docs/ARCHITECTURE.md §6).
      maxBlocks: 500,
      headPollMs: config.HEAD_POLL_MS ?? defaultHeadPollMs(chainId),
    }
  })
})
