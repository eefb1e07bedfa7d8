import { CanonicalAddress, CanonicalBytes32, type EvmAddress as Address, type Hex } from '@x402-facilitator/domain'
import { encodeDeployData, encodeFunctionData } from 'viem'
import { demoUsdtAbi, demoUsdtBytecode } from '../generated/demo-usdt.js'
import type { ChainRpc } from '../evm/rpc/chain-rpc.js'
import { decodeAnswer, fieldOf } from '../evm/rpc/rpc-failure.js'

export const DEMO_USDT_NAME = 'Demo USDT'
export const DEMO_USDT_SYMBOL = 'DUSDT'
export const DEMO_USDT_DECIMALS = 6
/** The `version` of DemoUsdt's EIP-712 domain (its EIP-2612 permits are signed over name, version, chain, address). */
export const DEMO_USDT_EIP712_VERSION = '1'

export interface DemoUsdt {
  readonly address: Address
  /** Anvil's first unlocked account: the deployer, the only one who may mint. */
  readonly owner: Address
  readonly mint: (to: Address, value: bigint) => Promise<void>
}

/**
 * Deploys contracts/DemoUsdt.sol ("Demo USDT", "DUSDT", 6 decimals: EIP-2612 `permit`, no EIP-3009) from anvil's first
 * unlocked account, and mints `units` to each of `payers`.
 */
export const deployDemoUsdt = async (
  rpc: ChainRpc,
  fund: { readonly payers: readonly Address[]; readonly units: bigint } = { payers: [], units: 0n },
): Promise<DemoUsdt> => {
  const accounts = await rpc.read('eth_accounts')
  const owner = decodeAnswer(CanonicalAddress, "anvil's first account", Array.isArray(accounts) ? accounts[0] : '')
  const send = async (what: string, tx: { to?: Address; data: Hex }): Promise<unknown> => {
    const hash = decodeAnswer(
      CanonicalBytes32,
      `the hash of ${what}`,
      await rpc.write('eth_sendTransaction', [{ from: owner, ...tx }]),
    )
    // Anvil mines each transaction as it comes; bounded, so a stuck node fails the set-up instead of hanging it.
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const receipt = await rpc.read('eth_getTransactionReceipt', [hash])
      if (receipt !== null) {
        if (fieldOf(receipt, 'status') !== '0x1') throw new Error(`DemoUsdt set-up: ${what} reverted`)
        return receipt
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`DemoUsdt set-up: ${what} was not mined`)
  }
  const data = encodeDeployData({
    abi: demoUsdtAbi,
    bytecode: demoUsdtBytecode,
    args: [DEMO_USDT_NAME, DEMO_USDT_SYMBOL],
  })
  const address = decodeAnswer(
    CanonicalAddress,
    'the address of DemoUsdt',
    fieldOf(await send('DemoUsdt', { data }), 'contractAddress'),
  )
  const mint = async (to: Address, value: bigint): Promise<void> =>
    void (await send('mint', {
      to: address,
      data: encodeFunctionData({ abi: demoUsdtAbi, functionName: 'mint', args: [to, value] }),
    }))
  for (const payer of fund.payers) await mint(payer, fund.units)
  return { address, owner, mint }
}
