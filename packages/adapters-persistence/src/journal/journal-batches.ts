import type { ClaimResult, MinedAndMarked, Transition } from '@x402-facilitator/domain'
import { markSuccessAnsweredSql, markSuccessAnsweredValues, type AnswerOf } from './journal-row-end-sql.js'
import type { ClaimOf } from './journal-claim-sql.js'
import { makeClaim } from './journal-claims.js'
import {
  markMinedSql,
  markMinedValues,
  markSubmittedSql,
  markSubmittedValues,
  type AttemptOf,
  type ReceiptOf,
} from './journal-sql.js'
import { perTickBatch } from './per-tick-batch.js'
import { refusedByTheDatabase, type RunStatement, type StatementResult } from './journal-statements.js'
import { decodeIdRow, decodeMinedRow } from './settlement-row.js'

/** The journal's writes that calls of one tick share: one statement per tick for each (docs/ARCHITECTURE.md §5). */
export interface BatchedWrites {
  readonly claim: (claim: ClaimOf) => Promise<ClaimResult>
  readonly markSubmitted: (item: AttemptOf) => Promise<Transition>
  readonly markMined: (item: ReceiptOf) => Promise<MinedAndMarked>
  /** Two calls for one row go in separate statements: the first applied, the second stale. */
  readonly markSuccessAnswered: (item: AnswerOf) => Promise<Transition>
}

const refKeys = ({ ref }: { readonly ref: { readonly id: string } }): string[] => [ref.id]

const appliedByRef = (
  items: ReadonlyArray<{ readonly ref: { readonly id: string } }>,
  result: StatementResult,
): Transition[] => {
  const applied = new Set(result.rows.map(decodeIdRow))
  return items.map(({ ref }) => (applied.has(ref.id) ? 'applied' : 'stale'))
}

export const makeBatchedWrites = (run: RunStatement, claimRetries: number): BatchedWrites => {
  /** A guarded transition, batched: calls naming one row go in separate statements. */
  const transitionBatch = <I extends { readonly ref: { readonly id: string } }>(
    sql: string,
    values: (items: ReadonlyArray<I>) => unknown[][],
  ) => {
    const many = async (items: ReadonlyArray<I>) => appliedByRef(items, await run(sql, values(items)))
    return perTickBatch({
      one: async (item: I) => (await many([item]))[0]!,
      many,
      keysOf: refKeys,
      refusedByTheDatabase,
    })
  }

  const minedMany = async (items: ReadonlyArray<ReceiptOf>): Promise<MinedAndMarked[]> => {
    const moved = new Map(
      (await run(markMinedSql, markMinedValues(items))).rows
        .map(decodeMinedRow)
        .map((row) => [row.id, row.successMarked]),
    )
    return items.map(({ ref }) => ({
      transition: moved.has(ref.id) ? 'applied' : 'stale',
      successMarked: moved.get(ref.id) === true,
    }))
  }

  return {
    claim: makeClaim(run, claimRetries),
    markSubmitted: transitionBatch(markSubmittedSql, markSubmittedValues),
    markMined: perTickBatch({
      one: async (item: ReceiptOf) => (await minedMany([item]))[0]!,
      many: minedMany,
      keysOf: refKeys,
      refusedByTheDatabase,
    }),
    markSuccessAnswered: transitionBatch(markSuccessAnsweredSql, markSuccessAnsweredValues),
  }
}
