import type { EvmAddress as Address, Permit2Contracts } from '@x402-facilitator/domain'
import { hasCode } from './account-code.js'
import { measureBlockSeconds } from './block-interval.js'
import { eip155Network } from './caip2.js'
import { answersEip2612, permit2Problem, type Permit2Problem } from './permit2/permit2-readiness.js'
import type { ChainRpc } from './rpc/chain-rpc.js'
import { readQuantity } from './rpc/rpc-failure.js'
import { checkSettler, settlerAllows, type SettlerToCheck } from './settler/settler-check.js'

/**
 * What the app's start-up checks, `/readyz` and gauges read of the chain (docs/ARCHITECTURE.md §5, §6), each call one
 * or a few JSON-RPC reads; a node that cannot be reached, or answers what the call does not allow, throws.
 */
export interface ChainReadiness {
  /** The CAIP-2 name of the chain the node serves (`eip155:<eth_chainId>`). */
  readonly network: () => Promise<string>
  /** Each RPC URL's chain id, read now, and what is wrong with it (another chain, no answer): for start-up. */
  readonly rpcUrls: ChainRpc['checkUrls']
  /** The latest block's number. */
  readonly head: () => Promise<bigint>
  /** `account`'s native balance (what pays its gas), in wei. */
  readonly gasBalance: (account: Address) => Promise<bigint>
  /** The node's gas price (`eth_gasPrice`), in wei. */
  readonly gasPrice: () => Promise<bigint>
  /** `account`'s transactions sent and not yet mined: its pending nonce minus its mined one. */
  readonly pendingTransactions: (account: Address) => Promise<bigint>
  /** Whether `address` has code (Multicall3 and the ERC-6492 factories at start-up). */
  readonly hasCode: (address: Address) => Promise<boolean>
  /** The chain's block time in whole seconds, from its recent headers; undefined with too few blocks to tell. */
  readonly blockSeconds: () => Promise<number | undefined>
  /** Whether the batch settler `settler` lets `account` call `settle` (`isSettler`). */
  readonly settlerAllows: (settler: Address, account: Address) => Promise<boolean>
  /** Throws a line naming the setting and the fix unless `settler` is this build's BatchSettler for our token and keys. */
  readonly checkSettler: (settler: SettlerToCheck) => Promise<void>
  /** What is wrong with a network's Permit2 and x402 proxies (permit2-readiness.ts); undefined: nothing. */
  readonly permit2Problem: (contracts: Permit2Contracts) => Promise<Permit2Problem | undefined>
  /** Whether the token answers EIP-2612 `nonces(address)` and `DOMAIN_SEPARATOR()`. */
  readonly answersEip2612: (token: Address) => Promise<boolean>
}

export const makeChainReadiness = (rpc: ChainRpc): ChainReadiness => {
  const nonce = (account: Address, block: 'pending' | 'latest') =>
    readQuantity(rpc, 'eth_getTransactionCount', [account, block])
  return {
    network: async () => eip155Network(await readQuantity(rpc, 'eth_chainId')),
    rpcUrls: rpc.checkUrls,
    head: () => readQuantity(rpc, 'eth_blockNumber'),
    gasBalance: (account) => readQuantity(rpc, 'eth_getBalance', [account, 'latest']),
    gasPrice: () => readQuantity(rpc, 'eth_gasPrice', []),
    pendingTransactions: async (account) => {
      const [pending, latest] = await Promise.all([nonce(account, 'pending'), nonce(account, 'latest')])
      return pending - latest
    },
    hasCode: (address) => hasCode(rpc, address),
    blockSeconds: () => measureBlockSeconds(rpc),
    settlerAllows: (settler, account) => settlerAllows(rpc, settler, account),
    checkSettler: (settler) => checkSettler(rpc, settler),
    permit2Problem: (contracts) => permit2Problem(rpc, contracts),
    answersEip2612: (token) => answersEip2612(rpc, token),
  }
}
