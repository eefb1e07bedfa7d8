import { chainUnavailable, UintFromString, type ChainUnavailable } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainRpc } from './chain-rpc-types.js'

/** Why an RPC call failed, as far as it tells whether the node saw the request. */
export type RpcFailure =
  /** The node answered with a JSON-RPC error: it saw the request and refused it. */
  | { readonly kind: 'answered'; readonly code: number; readonly message: string; readonly data?: unknown }
  /** Nothing listens there (refused, unknown host): the request reached no node. */
  | { readonly kind: 'unreachable'; readonly message: string }
  /** No answer within the bound: the node may have processed it. */
  | { readonly kind: 'timeout'; readonly message: string }
  /** Connection lost mid-call, HTTP error, garbled answer: the node may have processed it. */
  | { readonly kind: 'transport'; readonly message: string }

/** The node answered, but not what was expected (a function missing from the contract, an undecodable result). */
export class UnexpectedAnswer extends Error {
  override readonly name = 'UnexpectedAnswer'
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

interface ErrorLike {
  readonly name?: unknown
  readonly code?: unknown
  readonly message?: unknown
  readonly details?: unknown
  readonly data?: unknown
  readonly status?: unknown
  readonly cause?: unknown
  /** Which of a network's URLs failed (`RpcUrlError` of rpc-failover.ts). */
  readonly rpcLabel?: unknown
}

const chainOf = (error: unknown): ReadonlyArray<ErrorLike> => {
  const chain: ErrorLike[] = []
  let current: unknown = error
  while (current !== null && typeof current === 'object' && chain.length < 10) {
    chain.push(current as ErrorLike)
    current = (current as ErrorLike).cause
  }
  return chain
}

export const classifyRpcError = (error: unknown): RpcFailure => {
  const chain = chainOf(error)
  const answered = chain.find((e) => e.name === 'RpcRequestError' && typeof e.code === 'number')
  const unexpected = chain.find(
    (e) => e.name === 'UnexpectedAnswer' || (typeof e.name === 'string' && e.name.startsWith('AbiDecoding')),
  )
  if (unexpected) return { kind: 'answered', code: 0, message: String(unexpected.message) }
  if (answered) {
    const message = typeof answered.details === 'string' ? answered.details : String(answered.message)
    return { kind: 'answered', code: answered.code as number, message, data: answered.data }
  }
  const label = chain.find((e) => typeof e.rpcLabel === 'string')?.rpcLabel
  const rpcName = label === undefined ? 'the RPC' : `the RPC ${String(label)}`
  if (chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT')) {
    return { kind: 'timeout', message: `${rpcName} did not answer in time` }
  }
  const system = chain.find((e) => typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code))
  if (system) return { kind: 'unreachable', message: `${rpcName} is unreachable (${String(system.code)})` }
  const innermost = chain[chain.length - 1]
  const code = chain.find((e) => typeof e.code === 'string')?.code
  const status = chain.find((e) => typeof e.status === 'number')?.status
  const detail = [code, status && `HTTP ${String(status)}`, innermost?.message].filter(Boolean).join(' ')
  const what = label === undefined ? 'the RPC call' : `the call to the RPC ${String(label)}`
  return { kind: 'transport', message: `${what} failed: ${detail || String(error)}` }
}

/** The node ran the call and it reverted: a verdict on the call, not on the node (EIP-1474 code 3, or revert data). */
export const isRevert = (failure: RpcFailure): boolean =>
  failure.kind === 'answered' &&
  (failure.code === 3 ||
    /revert/i.test(failure.message) ||
    (typeof failure.data === 'string' && /^0x[0-9a-fA-F]{8,}/.test(failure.data)))

/** A refusal that says nothing about the request: the node is busy, rate-limits us or lacks the block for now. */
export const isTransientRefusal = (failure: RpcFailure): boolean =>
  failure.kind === 'answered' &&
  (failure.code === -32005 ||
    failure.code === 429 ||
    /rate|limit|too many|header not found|unknown block|busy|capacity|timeout|unavailable/i.test(failure.message))

const ALREADY_KNOWN = /already known|known transaction|already imported|already exists|already in (the )?(mem)?pool/i

/** The node refused a transaction it has already: as good as accepted. */
export const isAlreadyKnown = (failure: RpcFailure): boolean =>
  failure.kind === 'answered' && ALREADY_KNOWN.test(failure.message)

export const describeRpcFailure = (failure: RpcFailure): string =>
  failure.kind === 'answered' ? `the node refused: ${failure.message} (${failure.code})` : failure.message

/** Carries a `ChainUnavailable` already described through a `tryRpc` body unchanged. */
export class ChainUnavailableError extends Error {
  constructor(readonly failure: ChainUnavailable) {
    super(failure.reason)
  }
}

/** Runs one RPC interaction; any failure becomes `ChainUnavailable` naming what was being done. */
export const tryRpc = <A>(what: string, run: () => Promise<A>): TE.TaskEither<ChainUnavailable, A> =>
  TE.tryCatch(run, (error) =>
    error instanceof ChainUnavailableError
      ? error.failure
      : chainUnavailable(`${what}: ${describeRpcFailure(classifyRpcError(error))}`),
  )

/** The right of a TaskEither, or its `ChainUnavailable` thrown for the enclosing `tryRpc`. */
export const rightOrThrow = async <A>(task: TE.TaskEither<ChainUnavailable, A>): Promise<A> => {
  const result = await task()
  if (result._tag === 'Left') throw new ChainUnavailableError(result.left)
  return result.right
}

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
  if (E.isLeft(decoded))
    throw new UndecodableAnswer(`${what}: expected ${codec.name}, got ${String(JSON.stringify(answer)).slice(0, 80)}`)
  return decoded.right
}

/** Field `key` of an answer that should be an object; undefined when it is not one. */
export const fieldOf = (answer: unknown, key: string): unknown =>
  answer !== null && typeof answer === 'object' ? Reflect.get(answer, key) : undefined

/** A JSON-RPC quantity (`eth_chainId`, `eth_getTransactionCount`, …) as a bigint. */
export const readQuantity = async (rpc: ChainRpc, method: string, params?: ReadonlyArray<unknown>): Promise<bigint> =>
  decodeAnswer(UintFromString, `the answer to ${method}`, await rpc.read(method, params))
