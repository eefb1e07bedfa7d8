import type { Address, BatchItemOutcome, Hex } from '@x402-facilitator/domain'
import { toEventSelector, type Log } from 'viem'

/** EIP-3009's `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)`: the token's own word that it paid. */
const AUTHORIZATION_USED = toEventSelector('AuthorizationUsed(address,bytes32)')
/** BatchSettler's `ItemSettled(uint256,address,bytes32,bool,bytes)`. */
const ITEM_SETTLED = toEventSelector('ItemSettled(uint256,address,bytes32,bool,bytes)')

/** What a receipt is judged against: the configured token, and who hears of a claim it does not back. */
export interface TokenLogsCheck {
  readonly token: Address
  /** Told of each payment a receipt claims without the token's log, for an error-level log. */
  readonly onUnbackedSuccess?: (message: string) => void
}

const lower = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '')
const emittedBy = (log: Log, address: Address): boolean => lower(log.address) === address

/** The token's `AuthorizationUsed` logs in a receipt, each as `authorizer-topic:nonce-topic` (one entry per log). */
const authorizationsUsed = (logs: ReadonlyArray<Log>, token: Address): string[] =>
  logs
    .filter((log) => emittedBy(log, token) && lower(log.topics?.[0]) === AUTHORIZATION_USED && log.topics.length === 3)
    .map((log) => `${lower(log.topics[1])}:${lower(log.topics[2])}`)

/**
 * A settler's outcomes (itemOutcomesOf) as the token backs them (docs/ARCHITECTURE.md §5.7): an item the settler reports
 * settled is paid only when the token emitted `AuthorizationUsed(authorizer, nonce)` for that item's authorizer and
 * nonce in the same receipt, each such log backing one item at most. Otherwise the settler (not ours, or not the
 * version we compiled) claims a payment that did not happen: the item fails, with why. Failed items are left as told.
 */
export const tokenBackedOutcomes = (
  logs: ReadonlyArray<unknown>,
  settler: Address,
  outcomes: ReadonlyArray<BatchItemOutcome>,
  txHash: Hex,
  { token, onUnbackedSuccess }: TokenLogsCheck,
): ReadonlyArray<BatchItemOutcome> => {
  const all = logs as ReadonlyArray<Log>
  const unspent = authorizationsUsed(all, token)
  // ItemSettled(uint256 index, address indexed authorizer, bytes32 indexed nonce, bool success, bytes revertData): the
  // topics are the token log's own (`authorizer:nonce`), the data's first two words the index and success. Read as they
  // stand, not decoded a second time (itemOutcomesOf already decoded them): viem's decoder cost ≈ 20 µs a log, measured
  // in `npm run bench -- --profile` (batched settle).
  const unbacked = new Map<number, string>()
  for (const log of all) {
    if (!emittedBy(log, settler) || lower(log.topics?.[0]) !== ITEM_SETTLED || log.topics.length !== 3 || typeof log.data !== 'string') continue
    if (BigInt(`0x${log.data.slice(66, 130)}`) === 0n) continue
    const used = `${lower(log.topics[1])}:${lower(log.topics[2])}`
    const at = unspent.indexOf(used)
    if (at >= 0) {
      unspent.splice(at, 1)
      continue
    }
    const index = Number(BigInt(`0x${log.data.slice(2, 66)}`))
    const authorizer = `0x${lower(log.topics[1]).slice(26)}`
    unbacked.set(index, `item ${index} of ${txHash} reported settled by ${settler}, but the token ${token} emitted no AuthorizationUsed(${authorizer}, ${lower(log.topics[2])}) in it: not paid`)
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
export const unbackedLoneSuccess = (logs: ReadonlyArray<unknown>, to: unknown, txHash: Hex, { token, onUnbackedSuccess }: TokenLogsCheck): string | undefined => {
  if (authorizationsUsed(logs as ReadonlyArray<Log>, token).length > 0) return undefined
  const reason = `transaction ${txHash} to ${lower(to)} succeeded, but the token ${token} emitted no AuthorizationUsed in it: not paid`
  onUnbackedSuccess?.(reason)
  return reason
}
