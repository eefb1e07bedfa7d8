import type { ChainAdapters } from '@x402-facilitator/adapters-chain'
import { ContainerModule } from 'inversify'
import type { Histogram } from 'prom-client'
import { instrumented } from '../instrumented.js'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-chain` implements; the calls that reach the node are timed. */
export const chainModule = (chain: ChainAdapters, chainCalls: Histogram<'call' | 'outcome'>) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.ChainRpc).toConstantValue(chain.rpc)
    bind(tokens.TokenReader).toConstantValue(instrumented(chain.tokenReader, chainCalls))
    bind(tokens.SignatureVerifier).toConstantValue(chain.signatureVerifier)
    bind(tokens.TransferSubmitter).toConstantValue(instrumented(chain.transferSubmitter, chainCalls))
    bind(tokens.AddressChecksum).toConstantValue(chain.addressChecksum)
  })
