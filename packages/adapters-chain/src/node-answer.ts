import { UintFromString } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { ChainRpc } from './chain-rpc.js'

/** One of the domain's codecs (`CanonicalAddress`, `CanonicalBytes32`, `HexBytes`, `UintFromString`), as used here. */
export interface AnswerCodec<A> {
  readonly name: string
  readonly decode: (answer: unknown) => E.Either<unknown, A>
}

/**
 * The node answered what JSON-RPC does not allow there. It reads as a garbled answer (`transport` in `RpcFailure`):
 * the node may have processed the request, so a send stays uncertain rather than refused.
 */
export class UndecodableAnswer extends Error {
  override readonly name = 'UndecodableAnswer'
}

/** `answer` decoded by `codec`, or an `UndecodableAnswer` saying what `what` should have been. */
export const decodeAnswer = <A>(codec: AnswerCodec<A>, what: string, answer: unknown): A => {
  const decoded = codec.decode(answer)
  if (E.isLeft(decoded)) throw new UndecodableAnswer(`${what}: expected ${codec.name}, got ${String(JSON.stringify(answer)).slice(0, 80)}`)
  return decoded.right
}

/** Field `key` of an answer that should be an object; undefined when it is not one. */
export const fieldOf = (answer: unknown, key: string): unknown =>
  answer !== null && typeof answer === 'object' ? Reflect.get(answer, key) : undefined

/** A JSON-RPC quantity (`eth_chainId`, `eth_getTransactionCount`, …) as a bigint. */
export const readQuantity = async (rpc: ChainRpc, method: string, params?: ReadonlyArray<unknown>): Promise<bigint> =>
  decodeAnswer(UintFromString, `the answer to ${method}`, await rpc.read(method, params))
