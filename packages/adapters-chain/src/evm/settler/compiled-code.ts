import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { toFunctionSelector, type Abi, type AbiFunction } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'

/** What scripts/compile-contracts.mjs generates for a contract, enough to recognise a deployment of it. */
export interface CompiledContract {
  readonly abi: Abi
  readonly deployedBytecode: Hex
  /** Byte ranges of the runtime code the constructor fills, by immutable name (solc's `immutableReferences`). */
  readonly immutables: Readonly<Record<string, ReadonlyArray<{ readonly start: number; readonly length: number }>>>
}

/** A deployment's immutables as their public getters answer: one 32-byte word each (hex), by name. */
export type ImmutableWords = Readonly<Record<string, Hex>>

/** One immutable's getter refused (or answered no word): the contract is not a deployment of this one. */
export class MissingGetter extends Error {
  constructor(readonly getter: string) {
    super(`${getter}() did not answer one word`)
  }
}

const getterSelector = (compiled: CompiledContract, name: string): Hex => {
  const getter = compiled.abi.find(
    (item): item is AbiFunction => item.type === 'function' && item.name === name && item.inputs.length === 0,
  )
  // The build's contract, not the chain, is at fault: every immutable must have a public getter to be read back.
  if (getter === undefined)
    throw new Error(`the compiled contract's immutable ${name} has no public getter: its code cannot be compared`)
  return toFunctionSelector(getter)
}

/**
 * Each immutable of `compiled` as `address` answers its getter: one `eth_call` each, sent together. A getter the node
 * refuses throws MissingGetter (first in the artifact's order); a node that cannot be reached throws as itself.
 */
export const readImmutableWords = async (
  rpc: Pick<ChainRpc, 'read'>,
  address: Address,
  compiled: CompiledContract,
  isRefusal: (error: unknown) => boolean,
): Promise<ImmutableWords> => {
  const names = Object.keys(compiled.immutables)
  const answers = await Promise.allSettled(
    names.map((name) => rpc.read('eth_call', [{ to: address, data: getterSelector(compiled, name) }, 'latest'])),
  )
  const words: Record<string, Hex> = {}
  for (const [k, name] of names.entries()) {
    const answer = answers[k]!
    if (answer.status === 'rejected' && !isRefusal(answer.reason)) throw answer.reason
    if (answer.status === 'rejected' || typeof answer.value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(answer.value))
      throw new MissingGetter(name)
    words[name] = answer.value.toLowerCase() as Hex
  }
  return words
}

/**
 * The runtime code a deployment of `compiled` has when its immutables hold `words`: the compiled runtime code with
 * each reference filled. A plain hash of the code would differ per deployment (token, item gas limit), and a code
 * compared with its immutables masked out could hold one value where the getter reads and another where it is used.
 */
export const runtimeCodeWith = (compiled: CompiledContract, words: ImmutableWords): Hex => {
  const code = compiled.deployedBytecode.slice(2).toLowerCase().split('')
  for (const [name, ranges] of Object.entries(compiled.immutables)) {
    const word = words[name]
    if (word === undefined) throw new Error(`no value for the immutable ${name}`)
    for (const { start, length } of ranges)
      code.splice(2 * start, 2 * length, ...word.slice(2 + 64 - 2 * length).split(''))
  }
  return `0x${code.join('')}`
}

/** Whether `code` (an `eth_getCode` answer) is `compiled` deployed with `words`. */
export const isCompiledCode = (code: unknown, compiled: CompiledContract, words: ImmutableWords): boolean =>
  typeof code === 'string' && code.toLowerCase() === runtimeCodeWith(compiled, words)
