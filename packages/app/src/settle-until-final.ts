import type {
  FacilitatorPolicy,
  InfrastructureFailure,
  PaymentRequest,
  SettledOutcome,
  SettleOptions,
  SettleOutcome,
  SettlementJournal,
  SettlementKey,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { FinalityWatcher } from './finality-watcher.js'

export interface SettleAnswerDeps {
  readonly policy: FacilitatorPolicy
  readonly journal: SettlementJournal
  readonly watcher: FinalityWatcher
  readonly settle: (request: PaymentRequest, options: SettleOptions) => TE.TaskEither<InfrastructureFailure, SettleOutcome>
  /** `SETTLE_WAIT_FOR`. */
  readonly waitFor: 'receipt' | 'final'
}

/**
 * docs/ARCHITECTURE.md §5.6: a settle's answer says how deep its block is (`confirmations`); with
 * `SETTLE_WAIT_FOR=final` success is answered only once the row is final, within the receipt timeout, else 202
 * `settlement_pending` with the row's transaction (the journal follows it to its end, as for any pending settle).
 * The wait runs as the settle's `beforeSuccess`: the answer it gives is the one the journal marks as the payment's one
 * success (§5.2), so a success turned into a 202 here is not marked, and the caller's retry may still have it.
 */
export const makeSettleAnswer =
  ({ policy, journal, watcher, settle, waitFor }: SettleAnswerDeps) =>
  (request: PaymentRequest, options: SettleOptions): TE.TaskEither<InfrastructureFailure, SettleOutcome> => {
    // Nothing to wait for: no `beforeSuccess`, so a settle's own receipt takes its success mark in the same write
    // (answer-success.ts `recordOwnSuccess`); the depth is added to the answer that leaves.
    if (waitFor === 'receipt') {
      return async () => {
        const outcome = await settle(request, options)()
        return E.isRight(outcome) && outcome.right._tag === 'Settled'
          ? E.right({ ...outcome.right, confirmations: watcher.confirmationsOf(outcome.right.blockNumber) })
          : outcome
      }
    }
    const started = Date.now()
    const beforeSuccess = (settled: SettledOutcome) => async (): Promise<SettleOutcome> => {
      const key: SettlementKey = { network: policy.network, asset: policy.asset.address, payer: settled.payer, nonce: request.payload.authorization.nonce }
      const row = await untilFinal(journal, watcher, key, policy.receiptTimeoutMs - (Date.now() - started))
      if (row === undefined) return { _tag: 'Pending', payer: settled.payer, txHash: settled.txHash }
      if (row.state !== 'final' || row.txHash === undefined || row.blockNumber === undefined) {
        return { _tag: 'Pending', payer: settled.payer, txHash: row.txHash ?? settled.txHash }
      }
      return { ...settled, txHash: row.txHash, blockNumber: row.blockNumber, confirmations: watcher.confirmationsOf(row.blockNumber) }
    }
    return settle(request, { ...options, beforeSuccess })
  }

/** The row once final, or as it is when `ms` ran out; undefined when the journal did not answer. */
const untilFinal = async (journal: SettlementJournal, watcher: FinalityWatcher, key: SettlementKey, ms: number) => {
  const read = async () => {
    const found = await journal.findByKey(key)()
    return E.isRight(found) && O.isSome(found.right) ? found.right.value : undefined
  }
  const first = await read()
  if (first === undefined || first.state === 'final') return first
  // Registered before the second read: a row made final after that read is told to the waiter.
  const wait = watcher.waitFinal(first.id, ms)
  const second = await read()
  if (second?.state === 'final') wait.cancel()
  else await wait.done
  return read()
}
