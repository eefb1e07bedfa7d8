import type { ChainAdapters } from '@x402-facilitator/adapters-chain'
import { ContainerModule } from 'inversify'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-chain` implements. */
export const chainModule = (chain: ChainAdapters) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.ChainRpc).toConstantValue(chain.rpc)
    bind(tokens.TokenReader).toConstantValue(chain.tokenReader)
    bind(tokens.SignatureVerifier).toConstantValue(chain.signatureVerifier)
    bind(tokens.TransferSubmitter).toConstantValue(chain.transferSubmitter)
    bind(tokens.AddressChecksum).toConstantValue(chain.addressChecksum)
  })
