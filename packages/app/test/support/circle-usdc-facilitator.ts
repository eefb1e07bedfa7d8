import { makeChainRpc } from '@x402-facilitator/adapters-chain'
import { deployCircleUsdc, type CircleUsdc, type startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { startTestFacilitator, type TestFacilitator } from './test-facilitator.js'

export interface CircleUsdcFacilitator extends TestFacilitator {
  /** Circle's FiatTokenV2_2 behind FiatTokenProxy, as on mainnet: the app's ASSET_ADDRESS. */
  readonly usdc: CircleUsdc
}

/** USDC minted to each payer of the chain [1 000 USDC]. */
const PAYER_USDC = 1_000_000_000n

/**
 * The real app as `startTestFacilitator` starts it, on Circle's USDC instead of DemoUsd: deployed on the same anvil
 * (adapters-chain/testing), each payer holding `PAYER_USDC`; the app finds the token through ASSET_ADDRESS alone, as
 * in production.
 */
export const startCircleUsdcFacilitator = async (
  env: Record<string, string> = {},
  chainOptions: Parameters<typeof startLocalChain>[0] = {},
  /** Settings that name what the chain holds (e.g. ERC6492_FACTORIES). */
  envOf?: Parameters<typeof startTestFacilitator>[3],
  /** Where the app's log lines go (each one JSON line), instead of stdout. */
  logSink?: (line: string) => void,
): Promise<CircleUsdcFacilitator> => {
  let usdc: CircleUsdc | undefined
  let rpc: ReturnType<typeof makeChainRpc> | undefined
  const f = await startTestFacilitator(
    env,
    chainOptions,
    async (chain) => {
      // Kept open for the test's mint, blacklist and pause calls; closed by stop.
      rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
      const deployed = await deployCircleUsdc(rpc)
      for (const payer of chain.payers) await deployed.mint(payer.address, PAYER_USDC)
      usdc = deployed
      return deployed.address
    },
    envOf,
    logSink,
  ).catch((error: unknown) => {
    rpc?.close()
    throw error
  })
  return {
    ...f,
    usdc: usdc!,
    stop: async () => {
      rpc?.close()
      await f.stop()
    },
  }
}
