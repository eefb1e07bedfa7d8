import { canonical } from './journal-sql.js'
import * as O from 'fp-ts/lib/Option.js'
import type {
  ClaimRef,
  JournalScope,
  MarkMined,
  SettledElsewhereTransition,
  SettlementJournal,
  Transition,
  TransferReceipt,
} from '@x402-facilitator/domain'
import type { PgPool } from '../database/create-pg-pool.js'
import { markMinedAgainSql, markResignedSql } from './journal-finality-sql.js'
import {
  addBatchAttemptSql,
  addBatchAttemptValues,
  markBatchReleasedSql,
  markBatchSubmittedSql,
  markBatchSubmittedValues,
} from './journal-batch-sql.js'
import { makeBatchedWrites, type BatchedWrites } from './journal-batches.js'
import { findByIdempotencyKeySql, findByKeySql, findByTxHashSql } from './journal-read-sql.js'
import {
  markCancelledSql,
  markRefusedSql,
  markReleasedSql,
  markReorgedSql,
  markSettledElsewhereSql,
  markUnsettleableSql,
  otherTransactionValues,
  paymentLogTaken,
  releasedBlockValues,
  settledElsewhereValues,
} from './journal-row-end-sql.js'
import { releasedRowCalls } from './journal-released.js'
import { addAttemptSql, addAttemptValues, keyValues } from './journal-sql.js'
import { decodeIdRow, decodeSettlementRow } from './settlement-row.js'
import { defaultJournalTimeoutMs, journalCall, makeStatementRunner, type RunStatement } from './journal-statements.js'
import { ownerKeyedCalls } from './pg-owner-journal.js'

export interface PgSettlementJournalOptions {
  /** Every call answers (or fails with `JournalUnavailable`) within this bound [5000 ms]. */
  readonly timeoutMs?: number
  /** How many times `claim` re-runs when the conflicting row was not visible to its snapshot [8]. */
  readonly claimRetries?: number
  /** Called for every statement sent to Postgres (a batch counts once): for measurements. */
  readonly onStatement?: () => void
}

/** The unscoped journal, and one per route: all on one pool, their writes of one tick in one statement. */
export interface PgJournals {
  readonly journal: SettlementJournal
  readonly journalFor: (scope: JournalScope) => SettlementJournal
}

/**
 * The journals of docs/ARCHITECTURE.md §5 over Postgres; build `pool` with `createPgPool` so that every wait is
 * bounded.
 */
export const makePgJournals = (pool: PgPool, options: PgSettlementJournalOptions = {}): PgJournals => {
  const timeoutMs = options.timeoutMs ?? defaultJournalTimeoutMs
  const run = makeStatementRunner(pool, options.onStatement)
  const batched = makeBatchedWrites(run, options.claimRetries ?? 8)
  return {
    journal: journalOn(run, batched, timeoutMs),
    journalFor: (scope) => journalOn(run, batched, timeoutMs, scope),
  }
}

/** The unscoped journal alone (docs/ARCHITECTURE.md §5). */
export const makePgSettlementJournal = (pool: PgPool, options: PgSettlementJournalOptions = {}): SettlementJournal =>
  makePgJournals(pool, options).journal

/** With a scope, claims record its chain and owner-keyed calls keep to it (docs/ARCHITECTURE.md §5, "Networks"). */
const journalOn = (
  run: RunStatement,
  batched: BatchedWrites,
  timeoutMs: number,
  scope?: JournalScope,
): SettlementJournal => {
  const guarded = (operation: string, sql: string, values: ReadonlyArray<unknown>) =>
    journalCall(operation, timeoutMs, async (): Promise<Transition> =>
      ((await run(sql, values)).rowCount ?? 0) > 0 ? 'applied' : 'stale',
    )

  const findOne = (operation: string, sql: string, values: ReadonlyArray<unknown>) =>
    journalCall(operation, timeoutMs, async () =>
      O.fromNullable((await run(sql, values)).rows.map(decodeSettlementRow)[0]),
    )

  return {
    claim: (settlement) =>
      journalCall('claim', timeoutMs, () => batched.claim({ settlement, chainId: scope?.chainId ?? null })),
    markSubmitted: (ref, attempt) =>
      journalCall('markSubmitted', timeoutMs, () => batched.markSubmitted({ ref, attempt })),
    markBatchSubmitted: (refs, attempt) =>
      journalCall('markBatchSubmitted', timeoutMs, async (): Promise<Transition> => {
        const stored = (await run(markBatchSubmittedSql, markBatchSubmittedValues(refs, attempt))).rowCount ?? 0
        return stored === refs.length ? 'applied' : 'stale'
      }),
    markBatchReleased: (refs, from, reason, mined) =>
      journalCall('markBatchReleased', timeoutMs, async () =>
        (
          await run(markBatchReleasedSql, [
            reason,
            ...releasedBlockValues(mined),
            refs.map((r) => r.id),
            refs.map((r) => r.generation),
            from,
          ])
        ).rows.map(decodeIdRow),
      ),
    addBatchAttempt: (previous, attempt) =>
      journalCall('addBatchAttempt', timeoutMs, async () =>
        (await run(addBatchAttemptSql, addBatchAttemptValues(previous, attempt))).rows.map(decodeIdRow),
      ),
    addAttempt: (ref, attempt) => guarded('addAttempt', addAttemptSql, addAttemptValues({ ref, attempt })),
    markMined: ((ref: ClaimRef, receipt: TransferReceipt, answerId?: string) =>
      journalCall('markMined', timeoutMs, async () => {
        const mined = await batched.markMined(answerId === undefined ? { ref, receipt } : { ref, receipt, answerId })
        return answerId === undefined ? mined.transition : mined
      })) as MarkMined,
    markReleased: (ref, from, reason, mined) =>
      guarded('markReleased', markReleasedSql, [reason, ...releasedBlockValues(mined), ref.id, ref.generation, from]),
    markSettledElsewhere: (ref, note, by) =>
      journalCall('markSettledElsewhere', timeoutMs, async (): Promise<SettledElsewhereTransition> => {
        try {
          const [row] = (await run(markSettledElsewhereSql, settledElsewhereValues(ref, note, by))).rows as Array<{
            moved: number
            taken: number
          }>
          return row?.moved === 1 ? 'applied' : row?.taken === 1 ? 'payment-log-taken' : 'stale'
        } catch (error) {
          if (paymentLogTaken(error)) return 'payment-log-taken'
          throw error
        }
      }),
    markCancelled: (ref, note, by) =>
      guarded('markCancelled', markCancelledSql, [...otherTransactionValues(by), note, ref.id, ref.generation]),
    markRefused: (ref, reason) => guarded('markRefused', markRefusedSql, [reason, ref.id, ref.generation]),
    markUnsettleable: (ref, reason) =>
      guarded('markUnsettleable', markUnsettleableSql, [reason, ref.id, ref.generation]),
    markReorged: (ref) => guarded('markReorged', markReorgedSql, [ref.id, ref.generation]),
    markResigned: (ref, attempt) => guarded('markResigned', markResignedSql, addAttemptValues({ ref, attempt })),
    markMinedAgain: (ref, receipt) =>
      guarded('markMinedAgain', markMinedAgainSql, [
        canonical(receipt.txHash),
        receipt.blockNumber.toString(),
        receipt.blockHash === undefined ? null : canonical(receipt.blockHash),
        receipt.gasUsed.toString(),
        ref.id,
        ref.generation,
      ]),
    ...ownerKeyedCalls(run, timeoutMs, scope),
    ...releasedRowCalls(run, timeoutMs, scope),
    markSuccessAnswered: (id, answerId) =>
      journalCall('markSuccessAnswered', timeoutMs, () => batched.markSuccessAnswered({ ref: { id }, answerId })),
    findByKey: (key) => findOne('findByKey', findByKeySql, keyValues(key)),
    findByTxHash: (txHash) => findOne('findByTxHash', findByTxHashSql, [canonical(txHash)]),
    findByIdempotencyKey: (key) => findOne('findByIdempotencyKey', findByIdempotencyKeySql, [key]),
  }
}
