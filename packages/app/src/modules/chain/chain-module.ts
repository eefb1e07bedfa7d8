import { ContainerModule } from 'inversify'
import { timedPort } from '@x402-facilitator/domain'
import * as tokens from '../../tokens.js'

export type { ChainStart, OpenChain } from '../../tokens.js'

/**
 * The chain's side (docs/ARCHITECTURE.md §1): the network's adapters as `OpenChain` made them (once per network, bound
 * by infrastructure-module.ts), the ports the use cases call timed.
 */
export const chainModule = new ContainerModule(({ bind }) => {
  // This route's token among the network's (each with its reader, EIP-712 domain, settler and submitters).
  bind(tokens.ChainToken).toDynamicValue((context) => {
    const address = context.get(tokens.Infrastructure).tokenAddress.toLowerCase()
    const token = context.get(tokens.Chain).tokens.find((t) => t.address === address)
    if (token === undefined) throw new Error(`start-up: the chain was not opened with the token ${address}`)
    return token
  })
  bind(tokens.SettlerItemGasLimit).toDynamicValue(async (context) => {
    // After the start-up checks: the settler has code and settles our token.
    await context.getAsync(tokens.CheckedChain)
    return context.get(tokens.ChainToken).settlerItemGasLimit()
  })
  bind(tokens.TokenReader).toDynamicValue((context) =>
    timedPort(context.get(tokens.ChainToken).tokenReader, context.get(tokens.Observability).chainCalls),
  )
  bind(tokens.SignatureVerifier).toDynamicValue((context) => context.get(tokens.ChainToken).signatureVerifier)
  // One per signing key (docs/ARCHITECTURE.md §5.8), over the key's core the network's tokens share: its nonces,
  // broadcast queue and receipt watcher.
  bind(tokens.TransferSubmitters).toDynamicValue((context) => {
    const { chainCalls } = context.get(tokens.Observability)
    return context.get(tokens.ChainToken).submitters.map(({ account, submitter }) => ({
      account,
      submitter: timedPort(submitter, chainCalls),
    }))
  })
  bind(tokens.AddressChecksum).toDynamicValue((context) => context.get(tokens.Chain).addressChecksum)
  bind(tokens.ChainBlocks).toDynamicValue((context) =>
    timedPort(context.get(tokens.Chain).chainBlocks, context.get(tokens.Observability).chainCalls),
  )
})
