import * as O from 'fp-ts/lib/Option.js'
import type { ClaimRef, MarkMined, SettlementJournal, Transition, TransferReceipt } from '@x402-facilitator/domain'
import type { PgPool } from './create-pg-pool.js'
import {
  blocksToWatchSql,
  endWatchSql,
  findInBlockSql,
  markFinalSql,
  markMinedAgainSql,
  markResignedSql,
  ownersWithOpenRowsSql,
} from './journal-finality-sql.js'
import {
  addBatchAttemptSql,
  addBatchAttemptValues,
  markBatchReleasedSql,
  markBatchSubmittedSql,
  markBatchSubmittedValues,
} from './journal-batch-sql.js'
import { makeBatchedWrites } from './journal-batches.js'
import {
  accountNoncesInFlightSql,
  findByIdempotencyKeySql,
  findByKeySql,
  findByTxHashSql,
  findUnfinishedSql,
} from './journal-read-sql.js'
import {
  markCancelledSql,
  markRefusedSql,
  markReleasedSql,
  markReorgedSql,
  markSettledElsewhereSql,
  markUnsettleableSql,
  otherTransactionValues,
  releasedBlockValues,
} from './journal-row-end-sql.js'
import { addAttemptSql, addAttemptValues, keyValues } from './journal-sql.js'
import {
  decodeAccountNonceRow,
  decodeIdRow,
  decodeOwnerRowsRow,
  decodeRecordedBlockRow,
  decodeSettlementRow,
} from './settlement-row.js'
import { defaultJournalTimeoutMs, journalCall, makeStatementRunner } from './journal-statements.js'

export interface PgSettlementJournalOptions {
  /** Every call answers (or fails with `JournalUnavailable`) within this bound [5000 ms]. */
  readonly timeoutMs?: number
  /** How many times `claim` re-runs when the conflicting row was not visible to its snapshot [8]. */
  readonly claimRetries?: number
  /** Called for every statement sent to Postgres (a batch counts once): for measurements. */
  readonly onStatement?: () => void
}

/**
 * The journal of docs/ARCHITECTURE.md §5 over Postgres; build `pool` with `createPgPool` so that every wait is
 * bounded.
 */
export const makePgSettlementJournal = (pool: PgPool, options: PgSettlementJournalOptions = {}): SettlementJournal => {
  const timeoutMs = options.timeoutMs ?? defaultJournalTimeoutMs
  const run = makeStatementRunner(pool, options.onStatement)
  const batched = makeBatchedWrites(run, options.claimRetries ?? 8)

  const guarded = (operation: string, sql: string, values: ReadonlyArray<unknown>) =>
    journalCall(operation, timeoutMs, async (): Promise<Transition> =>
      ((await run(sql, values)).rowCount ?? 0) > 0 ? 'applied' : 'stale',
    )

  const findOne = (operation: string, sql: string, values: ReadonlyArray<unknown>) =>
    journalCall(operation, timeoutMs, async () =>
      O.fromNullable((await run(sql, values)).rows.map(decodeSettlementRow)[0]),
    )

  return {
    claim: (settlement) => journalCall('claim', timeoutMs, () => batched.claim(settlement)),
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
      guarded('markSettledElsewhere', markSettledElsewhereSql, [
        ...otherTransactionValues(by),
        note,
        ref.id,
        ref.generation,
      ]),
    markCancelled: (ref, note, by) =>
      guarded('markCancelled', markCancelledSql, [...otherTransactionValues(by), note, ref.id, ref.generation]),
    markRefused: (ref, reason) => guarded('markRefused', markRefusedSql, [reason, ref.id, ref.generation]),
    markUnsettleable: (ref, reason) =>
      guarded('markUnsettleable', markUnsettleableSql, [reason, ref.id, ref.generation]),
    markReorged: (ref) => guarded('markReorged', markReorgedSql, [ref.id, ref.generation]),
    markResigned: (ref, attempt) => guarded('markResigned', markResignedSql, addAttemptValues({ ref, attempt })),
    markFinal: (owner, blocks) =>
      journalCall('markFinal', timeoutMs, async () =>
        blocks.length === 0
          ? []
          : (
              await run(markFinalSql, [
                blocks.map((b) => b.blockNumber.toString()),
                blocks.map((b) => b.blockHash?.toLowerCase() ?? null),
                owner.toLowerCase(),
              ])
            ).rows.map(decodeIdRow),
      ),
    markMinedAgain: (ref, receipt) =>
      guarded('markMinedAgain', markMinedAgainSql, [
        receipt.txHash.toLowerCase(),
        receipt.blockNumber.toString(),
        receipt.blockHash?.toLowerCase() ?? null,
        receipt.gasUsed.toString(),
        ref.id,
        ref.generation,
      ]),
    blocksToWatch: (owner, finalFrom, limit) =>
      journalCall('blocksToWatch', timeoutMs, async () =>
        (
          await run(blocksToWatchSql, [
            owner.toLowerCase(),
            owner.toLowerCase(),
            finalFrom.toString(),
            owner.toLowerCase(),
            limit,
          ])
        ).rows.map(decodeRecordedBlockRow),
      ),
    endWatch: (owner, below) =>
      journalCall('endWatch', timeoutMs, async () =>
        (await run(endWatchSql, [owner.toLowerCase(), below.toString()])).rows.map(decodeIdRow),
      ),
    ownersWithOpenRows: (finalFrom) =>
      journalCall('ownersWithOpenRows', timeoutMs, async () =>
        (await run(ownersWithOpenRowsSql, [finalFrom?.toString() ?? null])).rows.map(decodeOwnerRowsRow),
      ),
    findInBlock: (owner, block) =>
      journalCall('findInBlock', timeoutMs, async () =>
        (
          await run(findInBlockSql, [
            owner.toLowerCase(),
            block.blockNumber.toString(),
            block.blockHash?.toLowerCase() ?? null,
          ])
        ).rows.map(decodeSettlementRow),
      ),
    accountNoncesInFlight: (owner) =>
      journalCall('accountNoncesInFlight', timeoutMs, async () =>
        (await run(accountNoncesInFlightSql, [owner.toLowerCase(), owner.toLowerCase(), owner.toLowerCase()])).rows.map(
          decodeAccountNonceRow,
        ),
      ),
    findUnfinished: (updatedBefore, limit, after) =>
      journalCall('findUnfinished', timeoutMs, async () => {
        const cursor = after === undefined ? ['-infinity', '0'] : [after.updatedAt, after.id]
        return (await run(findUnfinishedSql, [updatedBefore, ...cursor, limit])).rows.map(decodeSettlementRow)
      }),
    markSuccessAnswered: (id, answerId) =>
      journalCall('markSuccessAnswered', timeoutMs, () => batched.markSuccessAnswered({ ref: { id }, answerId })),
    findByKey: (key) => findOne('findByKey', findByKeySql, keyValues(key)),
    findByTxHash: (txHash) => findOne('findByTxHash', findByTxHashSql, [txHash.toLowerCase()]),
    findByIdempotencyKey: (key) => findOne('findByIdempotencyKey', findByIdempotencyKeySql, [key]),
  }
}
