import { batchSettlerAbi, classifyRpcError, type ChainRpc } from '@x402-facilitator/adapters-chain'
import type { Address, Hex } from '@x402-facilitator/domain'
import { decodeFunctionResult, encodeFunctionData } from 'viem'

/** The batch settler settles may go through (docs/ARCHITECTURE.md §5.7), as the start-up checks found it. */
export interface Settler {
  readonly address: Address
  /** `BATCH_MAX_ITEMS`: the most payments one `settle` call carries. */
  readonly maxItems: number
  /** `BATCH_WINDOW_MS`: how long a payment may wait for others while a transaction of ours is in flight. */
  readonly windowMs: number
}

export interface SettlerToCheck {
  readonly address: Address
  /** What a refusal names: `SETTLER_ADDRESS`, or dev mode's own settler. */
  readonly setting: string
  /** `ASSET_ADDRESS`: the only token the settler may call. */
  readonly token: Address
  /** The facilitator's signing accounts: each must be allowed to call `settle`. */
  readonly accounts: ReadonlyArray<Address>
}

/** One view of the settler, its result as viem decodes it (an address, a bool). */
const call = async (rpc: ChainRpc, settler: Address, functionName: 'token' | 'owner' | 'isSettler', args: ReadonlyArray<Address> = []): Promise<unknown> => {
  const data = encodeFunctionData({ abi: batchSettlerAbi, functionName, args: args as never })
  const answer = await rpc.read('eth_call', [{ to: settler, data }, 'latest'])
  return decodeFunctionResult({ abi: batchSettlerAbi, functionName, data: answer as Hex })
}

const addressAnswer = (answer: unknown): Address => String(answer).toLowerCase() as Address

/** `isSettler(account)`: whether `account` may call `settle` on `settler`. */
export const settlerAllows = async (rpc: ChainRpc, settler: Address, account: Address): Promise<boolean> =>
  (await call(rpc, settler, 'isSettler', [account])) === true

/**
 * A settler that is not there, settles another token, or refuses our keys would fail every batch after the payments
 * were claimed: start-up stops instead, with one line naming the setting and the fix.
 */
export const checkSettler = async (rpc: ChainRpc, s: SettlerToCheck): Promise<void> => {
  const code = await rpc.read('eth_getCode', [s.address, 'latest'])
  if (typeof code !== 'string' || code === '0x') {
    throw new Error(`configuration: ${s.setting} ${s.address} has no code on this chain: run npm run deploy-settler and set SETTLER_ADDRESS to the address it prints, or unset SETTLER_ADDRESS`)
  }
  const token = await call(rpc, s.address, 'token').then(addressAnswer, (error: unknown) => {
    // Only the node's own answer says what the contract is; an unreachable node fails the start as itself.
    if (classifyRpcError(error).kind !== 'answered') throw error
    throw new Error(`configuration: ${s.setting} ${s.address} does not answer token(), so it is no BatchSettler: run npm run deploy-settler and set SETTLER_ADDRESS to the address it prints`)
  })
  if (token !== s.token) {
    throw new Error(`configuration: ${s.setting} ${s.address} settles the token ${token}, not ASSET_ADDRESS ${s.token}: run npm run deploy-settler for ${s.token} and set SETTLER_ADDRESS to the address it prints`)
  }
  for (const account of s.accounts) {
    if (!(await settlerAllows(rpc, s.address, account))) {
      const owner = addressAnswer(await call(rpc, s.address, 'owner'))
      throw new Error(`configuration: ${s.setting} ${s.address} does not let the facilitator ${account} settle: call setSettler(${account}, true) on it from its owner ${owner}`)
    }
  }
}
