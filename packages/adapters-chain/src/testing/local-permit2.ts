import { CanonicalBytes32, type EvmAddress as Address } from '@x402-facilitator/domain'
import { encodeFunctionData, maxUint256 } from 'viem'
import { makeChainRpc, type ChainRpc } from '../evm/rpc/chain-rpc.js'
import { demoUsdtAbi } from '../generated/demo-usdt.js'
import { decodeAnswer, fieldOf } from '../evm/rpc/rpc-failure.js'
import { deployDemoUsdt } from './demo-usdt-deployment.js'
import { deployPermit2Suite, PERMIT2_ADDRESS, type Permit2Suite } from './permit2-suite-deployment.js'

export interface LocalPermit2 {
  readonly suite: Permit2Suite
  /** DemoUsdt (EIP-2612, no EIP-3009), when asked for. */
  readonly demoUsdt?: Address
}

export interface LocalPermit2Options {
  /** Deploy DemoUsdt, mint `units` to each of `payers`, and let `approving` approve Permit2 for all it holds. */
  readonly demoUsdt?: {
    readonly payers: ReadonlyArray<Address>
    readonly units: bigint
    readonly approving: ReadonlyArray<Address>
  }
}

/** `owner` (an account anvil impersonates: dev and test chains only) approves Permit2 for every unit of `token`. */
const approvePermit2 = async (rpc: ChainRpc, token: Address, owner: Address): Promise<void> => {
  await rpc.read('anvil_impersonateAccount', [owner])
  try {
    const data = encodeFunctionData({ abi: demoUsdtAbi, functionName: 'approve', args: [PERMIT2_ADDRESS, maxUint256] })
    const hash = decodeAnswer(
      CanonicalBytes32,
      'the hash of an approval',
      await rpc.write('eth_sendTransaction', [{ from: owner, to: token, data }]),
    )
    // Anvil mines each transaction as it comes; bounded, so a stuck node fails the set-up instead of hanging it.
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const receipt = await rpc.read('eth_getTransactionReceipt', [hash])
      if (receipt !== null) {
        if (fieldOf(receipt, 'status') !== '0x1') throw new Error(`the approval of Permit2 by ${owner} reverted`)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`the approval of Permit2 by ${owner} was not mined`)
  } finally {
    await rpc.read('anvil_stopImpersonatingAccount', [owner])
  }
}

/**
 * Dev mode and tests: Permit2 and x402's two proxies at their canonical addresses on a local chain and, when asked,
 * DemoUsdt funded to the payers, some of whom approve Permit2 (the others can only pay by a sponsored EIP-2612 permit).
 */
export const placeLocalPermit2 = async (rpcUrl: string, options: LocalPermit2Options = {}): Promise<LocalPermit2> => {
  const rpc = makeChainRpc({ rpcUrl, rpcTimeoutMs: 10_000 })
  try {
    const suite = await deployPermit2Suite(rpc)
    if (options.demoUsdt === undefined) return { suite }
    const { payers, units, approving } = options.demoUsdt
    const { address } = await deployDemoUsdt(rpc, { payers: [...payers], units })
    for (const owner of approving) await approvePermit2(rpc, address, owner)
    return { suite, demoUsdt: address }
  } finally {
    rpc.close()
  }
}
