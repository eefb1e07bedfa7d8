import type { EvmAddress as Address, Authorization, BatchItemOutcome, Hex } from '@x402-facilitator/domain'
import { decodeEventLog, pad, toEventSelector } from 'viem'
import { batchSettlerAbi } from '../../generated/batch-settler.js'
import { topicsOf, type NodeLog } from './node-receipt.js'
import { TRANSFER } from '../permit2/permit2-abi.js'

/**
 * EIP-3009's `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)`: the token's own word that it paid.
 */
export const AUTHORIZATION_USED = toEventSelector('AuthorizationUsed(address,bytes32)')
/** EIP-3009's `AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)`. */
export const AUTHORIZATION_CANCELED = toEventSelector('AuthorizationCanceled(address,bytes32)')
/** Whether `log` is the token's `Transfer(payer, payee, value)` of exactly this payment (lower-case topics). */
export const isPaymentTransfer = (
  log: NodeLog | undefined,
  token: Address,
  a: Pick<Authorization, 'from' | 'to' | 'value'>,
): boolean =>
  log !== undefined &&
  log.address === token &&
  log.topics[0] === TRANSFER &&
  log.topics[1] === pad(a.from).toLowerCase() &&
  log.topics[2] === pad(a.to).toLowerCase() &&
  log.data.length > 2 &&
  BigInt(log.data) === a.value

/** BatchSettler's `ItemSettled(uint256 index, address indexed authorizer, bytes32 indexed nonce, bool, bytes)`. */
export const ITEM_SETTLED = toEventSelector('ItemSettled(uint256,address,bytes32,bool,bytes)')

// What the settler's and the token's logs in a receipt say about each payment (docs/ARCHITECTURE.md §5.7).

/** One of the settler's events; undefined for a log that is none (strict: a log that does not decode is skipped). */
const settlerEvent = (log: NodeLog) => {
  try {
    return decodeEventLog({ abi: batchSettlerAbi, data: log.data, topics: topicsOf(log), strict: true })
  } catch {
    return undefined
  }
}

/** What a receipt is judged against: the configured token, and who hears of a claim it does not back. */
export interface TokenLogsCheck {
  readonly token: Address
  /** Told of each payment a receipt claims without the token's log, for an error-level log. */
  readonly onUnbackedSuccess?: (message: string) => void
  /** The x402 Permit2 proxies: a lone transaction to one of them is judged by the token's `Transfer` [canonical]. */
  readonly permit2Proxies?: ReadonlyArray<Address>
}

/** The token's `AuthorizationUsed` logs in a receipt, each as `authorizer-topic:nonce-topic` (one entry per log). */
const authorizationsUsed = (logs: ReadonlyArray<NodeLog>, token: Address): string[] =>
  logs
    .filter((log) => log.address === token && log.topics[0] === AUTHORIZATION_USED && log.topics.length === 3)
    .map((log) => `${log.topics[1]}:${log.topics[2]}`)

/**
 * A settler's outcomes (itemOutcomesOf) as the token backs them (docs/ARCHITECTURE.md §5.7): an item the settler
 * reports settled is paid only when the token emitted `AuthorizationUsed(authorizer, nonce)` for that item's authorizer
 * and nonce in the same receipt, each such log backing one item at most. Otherwise the settler (not ours, or not the
 * version we compiled) claims a payment that did not happen: the item fails, with why. Failed items are left as told.
 */
export const tokenBackedOutcomes = (
  logs: ReadonlyArray<NodeLog>,
  settler: Address,
  outcomes: ReadonlyArray<BatchItemOutcome>,
  txHash: Hex,
  { token, onUnbackedSuccess }: TokenLogsCheck,
): ReadonlyArray<BatchItemOutcome> => {
  const unspent = authorizationsUsed(logs, token)
  // ItemSettled(uint256 index, address indexed authorizer, bytes32 indexed nonce, bool success, bytes revertData): the
  // topics are the token log's own (`authorizer:nonce`), the data's first two words the index and success. Read as they
  // stand, not decoded a second time (itemOutcomesOf already decoded them): viem's decoder cost ≈ 20 µs a log,
  // measured in `npm run bench -- --profile` (batched settle).
  const unbacked = new Map<number, string>()
  for (const log of logs) {
    if (log.address !== settler || log.topics[0] !== ITEM_SETTLED || log.topics.length !== 3 || log.data.length < 130)
      continue
    if (BigInt(`0x${log.data.slice(66, 130)}`) === 0n) continue
    const used = `${log.topics[1]}:${log.topics[2]}`
    const at = unspent.indexOf(used)
    if (at >= 0) {
      unspent.splice(at, 1)
      continue
    }
    const index = Number(BigInt(`0x${log.data.slice(2, 66)}`))
    const authorizer = `0x${log.topics[1]!.slice(26)}`
    unbacked.set(
      index,
      `item ${index} of ${txHash} reported settled by ${settler}, but the token ${token} emitted no ` +
        `AuthorizationUsed(${authorizer}, ${log.topics[2]}) in it: not paid`,
    )
  }
  return outcomes.map((outcome) => {
    const reason = outcome.succeeded ? unbacked.get(outcome.index) : undefined
    if (reason === undefined) return outcome
    onUnbackedSuccess?.(reason)
    return { ...outcome, succeeded: false, revertReason: reason }
  })
}

/**
 * Why a lone transaction that succeeded paid nothing, or undefined when the token logged a use of an authorization in
 * it. A lone settle carries one authorization, so the token's log is the proof whichever way it went: straight to the
 * token, or through Multicall3 (whose address is configured: with no code there, the call succeeds and moves nothing).
 */
export const unbackedLoneSuccess = (
  logs: ReadonlyArray<NodeLog>,
  to: Address | undefined,
  txHash: Hex,
  { token, onUnbackedSuccess }: TokenLogsCheck,
): string | undefined => {
  if (authorizationsUsed(logs, token).length > 0) return undefined
  const reason =
    `transaction ${txHash} to ${to ?? ''} succeeded, but the token ${token} emitted no AuthorizationUsed in it: ` +
    `not paid`
  onUnbackedSuccess?.(reason)
  return reason
}

/**
 * The settler's events in a receipt's logs (only those `settler` emitted), one outcome per item: `ItemSettled` for
 * each item run (the revert data of a failed one decoded by `reasonOf`: the token's message, or the data as hex; its
 * gas from `ItemGasUsed`), and for each item after a `BatchStopped` an outcome marked not run. A receipt of an earlier
 * settler (`ItemSettled` alone) decodes the same.
 */
export const itemOutcomesOf = (
  logs: ReadonlyArray<NodeLog>,
  settler: Address,
  reasonOf: (data: Hex) => string | undefined,
): ReadonlyArray<BatchItemOutcome> => {
  const events = logs.filter((log) => log.address === settler).flatMap((log) => settlerEvent(log) ?? [])
  const gasOf = new Map<number, bigint>()
  for (const event of events)
    if (event.eventName === 'ItemGasUsed') gasOf.set(Number(event.args.index), event.args.gasUsed)
  const outcomes: BatchItemOutcome[] = []
  for (const event of events) {
    if (event.eventName === 'ItemSettled') {
      const { args } = event
      const outcome: BatchItemOutcome = { index: Number(args.index), succeeded: args.success }
      if (args.success) {
        outcomes.push(outcome)
        continue
      }
      const reason = args.revertData === '0x' ? undefined : (reasonOf(args.revertData) ?? args.revertData)
      const gasUsed = gasOf.get(outcome.index)
      outcomes.push({
        ...outcome,
        ...(reason === undefined ? {} : { revertReason: reason }),
        ...(gasUsed === undefined ? {} : { gasUsed }),
      })
    } else if (event.eventName === 'BatchStopped') {
      for (let index = Number(event.args.firstNotRun); index < Number(event.args.itemCount); index++)
        outcomes.push({ index, succeeded: false, notRun: true })
    }
  }
  return outcomes
}

/** What a lone Permit2 transaction was sent to move (its proxy call's input, permit2-call.ts `decodePermit2Call`). */
export interface ExpectedTransfer {
  readonly owner: Address
  readonly to: Address
  readonly amount: bigint
}

/**
 * Why a lone Permit2 transaction that succeeded paid nothing, or undefined when the token emitted
 * `Transfer(owner, to, amount)` in it. Permit2 logs nothing of a signature transfer (no `AuthorizationUsed`), so the
 * token's own `Transfer` of exactly the amount to the payee is the only proof; an input that is no proxy call
 * (`expected` undefined) proves nothing.
 */
export const unbackedPermit2Success = (
  logs: ReadonlyArray<NodeLog>,
  expected: ExpectedTransfer | undefined,
  txHash: Hex,
  { token, onUnbackedSuccess }: TokenLogsCheck,
): string | undefined => {
  const topic = (a: Address) => `0x${a.slice(2).toLowerCase().padStart(64, '0')}`
  const backed =
    expected !== undefined &&
    logs.some(
      (log) =>
        log.address === token &&
        log.topics.length === 3 &&
        log.topics[0] === TRANSFER &&
        log.topics[1] === topic(expected.owner) &&
        log.topics[2] === topic(expected.to) &&
        log.data.length === 66 &&
        BigInt(log.data) === expected.amount,
    )
  if (backed) return undefined
  const what =
    expected === undefined
      ? 'its input is no Permit2 proxy call'
      : `the token ${token} emitted no Transfer(${expected.owner}, ${expected.to}, ${expected.amount}) in it`
  const reason = `Permit2 transaction ${txHash} succeeded, but ${what}: not paid`
  onUnbackedSuccess?.(reason)
  return reason
}
