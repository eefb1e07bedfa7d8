import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { holdsCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { isCompiledCode, MissingGetter, readImmutableWords, type CompiledContract } from './compiled-code.js'
import { batchSettlerAbi, batchSettlerDeployedBytecode, batchSettlerImmutables } from '../../generated/batch-settler.js'
import { classifyRpcError } from '../rpc/rpc-failure.js'

const BATCH_SETTLER: CompiledContract = {
  abi: batchSettlerAbi,
  deployedBytecode: batchSettlerDeployedBytecode,
  immutables: batchSettlerImmutables,
}

/** What is at a settler's address, compared with the BatchSettler this build compiled (docs/ARCHITECTURE.md §5.7). */
export type SettlerCode =
  | { readonly _tag: 'NoCode' }
  /** A getter of one of its immutables (`token`, `itemGasLimit`) refused: no BatchSettler. */
  | { readonly _tag: 'NoGetter'; readonly getter: string }
  /** `compiled`: its runtime code is this build's BatchSettler with `token` and `itemGasLimit` filled in. */
  | { readonly _tag: 'Answered'; readonly token: Address; readonly itemGasLimit: bigint; readonly compiled: boolean }

/**
 * Reads a settler's runtime code and its immutables' getters (`eth_getCode`, `token()`, `itemGasLimit()`: the getters
 * sent together) and compares the code with the compiled BatchSettler's, immutables filled. A settler of another
 * version (another build of BatchSettler.sol) or any other contract answering like one differs. A node that cannot be
 * reached throws as itself.
 */
export const readSettlerCode = async (rpc: Pick<ChainRpc, 'read'>, settler: Address): Promise<SettlerCode> => {
  const code = await rpc.read('eth_getCode', [settler, 'latest'])
  if (holdsCode(code) !== true) return { _tag: 'NoCode' }
  try {
    const words = await readImmutableWords(
      rpc,
      settler,
      BATCH_SETTLER,
      (error) => classifyRpcError(error).kind === 'answered',
    )
    const token = `0x${words.token!.slice(26)}` as Address
    return {
      _tag: 'Answered',
      token,
      itemGasLimit: BigInt(words.itemGasLimit!),
      compiled: isCompiledCode(code, BATCH_SETTLER, words),
    }
  } catch (error) {
    if (error instanceof MissingGetter) return { _tag: 'NoGetter', getter: error.getter }
    throw error
  }
}
