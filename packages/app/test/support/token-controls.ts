import { demoUsdAbi } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { encodeFunctionData } from 'viem'
import type { TestFacilitator } from './test-facilitator.js'
import { sendFromAnvilAccount } from './payments-on-chain.js'

/** What a USDC-like token's operators can do to payments: Circle's roles on USDC, the owner on DemoUsd. */
export interface TokenControls {
  readonly blacklist: (account: Address) => Promise<void>
  readonly unBlacklist: (account: Address) => Promise<void>
  readonly pause: () => Promise<void>
  readonly unpause: () => Promise<void>
}

type OwnerCall =
  | { functionName: 'blacklist' | 'unBlacklist'; args: [Address] }
  | { functionName: 'pause' | 'unpause'; args?: undefined }

/** DemoUsd's blacklist and pause, owner-only as USDC's roles are; the owner is anvil's first account. */
export const demoUsdControls = (f: TestFacilitator): TokenControls => {
  const asOwner = async (call: OwnerCall) =>
    void (await sendFromAnvilAccount(f, { to: f.asset, data: encodeFunctionData({ abi: demoUsdAbi, ...call }) }))
  return {
    blacklist: (account) => asOwner({ functionName: 'blacklist', args: [account] }),
    unBlacklist: (account) => asOwner({ functionName: 'unBlacklist', args: [account] }),
    pause: () => asOwner({ functionName: 'pause' }),
    unpause: () => asOwner({ functionName: 'unpause' }),
  }
}
