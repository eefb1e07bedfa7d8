import { HexBytes, type EvmAddress as Address } from '@x402-facilitator/domain'
import { decodeFunctionResult, encodeFunctionData } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { batchSettlerAbi } from '../../generated/batch-settler.js'
import { decodeAnswer } from '../rpc/rpc-failure.js'
import { readSettlerCode } from './settler-code.js'

/** What the configuration expects of a batch settler (docs/ARCHITECTURE.md §5.7). */
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
const call = async (
  rpc: Pick<ChainRpc, 'read'>,
  settler: Address,
  functionName: 'owner' | 'isSettler',
  args: ReadonlyArray<Address> = [],
): Promise<unknown> => {
  const data = encodeFunctionData({ abi: batchSettlerAbi, functionName, args: args as never })
  const answer = await rpc.read('eth_call', [{ to: settler, data }, 'latest'])
  return decodeFunctionResult({
    abi: batchSettlerAbi,
    functionName,
    data: decodeAnswer(HexBytes, `the settler's ${functionName}()`, answer),
  })
}

const addressAnswer = (answer: unknown): Address => String(answer).toLowerCase() as Address

/** `isSettler(account)`: whether `account` may call `settle` on `settler`. */
export const settlerAllows = async (
  rpc: Pick<ChainRpc, 'read'>,
  settler: Address,
  account: Address,
): Promise<boolean> => (await call(rpc, settler, 'isSettler', [account])) === true

/**
 * A settler that is not there, is not this version's BatchSettler, settles another token, or refuses our keys would
 * fail (or misreport) every batch after the payments were claimed: start-up stops instead, with one line naming the
 * setting and the fix. Its runtime code is compared with the compiled one, immutables filled (settler-code.ts).
 */
export const checkSettler = async (rpc: Pick<ChainRpc, 'read'>, s: SettlerToCheck): Promise<void> => {
  const found = await readSettlerCode(rpc, s.address)
  const redeploy = 'run npm run deploy-settler and set SETTLER_ADDRESS to the address it prints'
  if (found._tag === 'NoCode')
    throw new Error(
      `configuration: ${s.setting} ${s.address} has no code on this chain: ${redeploy}, or unset SETTLER_ADDRESS`,
    )
  if (found._tag === 'NoGetter')
    throw new Error(
      `configuration: ${s.setting} ${s.address} does not answer ${found.getter}(), so it is no BatchSettler: ` +
        `${redeploy}`,
    )
  if (found.token !== s.token) {
    throw new Error(
      `configuration: ${s.setting} ${s.address} settles the token ${found.token}, not ASSET_ADDRESS ${s.token}: ` +
        `run npm run deploy-settler for ${s.token} and set SETTLER_ADDRESS to the address it prints`,
    )
  }
  if (!found.compiled) {
    throw new Error(
      `configuration: ${s.setting} ${s.address} runs other code than the BatchSettler of this version ` +
        `(compared with its token() and itemGasLimit() filled in): ${redeploy}`,
    )
  }
  for (const account of s.accounts) {
    if (!(await settlerAllows(rpc, s.address, account))) {
      const owner = addressAnswer(await call(rpc, s.address, 'owner'))
      throw new Error(
        `configuration: ${s.setting} ${s.address} does not let the facilitator ${account} settle: call ` +
          `setSettler(${account}, true) on it from its owner ${owner}`,
      )
    }
  }
}
