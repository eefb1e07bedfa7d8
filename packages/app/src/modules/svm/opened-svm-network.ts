import { makeSvmChain, makeSvmRpc } from '@x402-facilitator/adapters-chain'
import type { SvmChain, SvmFeePayer } from '@x402-facilitator/domain'
import type { Config } from '../../config.js'
import type { SvmNetworkConfig } from '../../config/svm-network-config.js'

/** A Solana network opened: its cluster's client and its fee payers (their addresses hold its replica locks). */
export interface OpenedSvmNetwork extends SvmNetworkConfig {
  readonly chain: SvmChain
  readonly feePayers: ReadonlyArray<SvmFeePayer>
}

export const openSvmNetwork = (
  network: SvmNetworkConfig,
  feePayers: ReadonlyArray<SvmFeePayer>,
  config: Config,
): OpenedSvmNetwork => ({
  ...network,
  feePayers,
  chain: makeSvmChain(makeSvmRpc({ rpcUrls: network.rpcUrls, timeoutMs: config.RPC_TIMEOUT_MS })),
})

/** A Solana network as the store keys it: its rows' name (its CAIP-2 id), its fee payers' replica locks, its mints. */
export const svmStoreNetwork = ({ caip2, feePayers, tokens }: OpenedSvmNetwork) => ({
  name: caip2,
  chainId: caip2,
  accounts: feePayers.map((key) => key.address),
  assets: tokens.map((token) => token.mint),
})
