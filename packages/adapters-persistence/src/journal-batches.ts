import type { ClaimResult, MinedAndMarked, SettlementKey, Transition } from '@x402-facilitator/domain'
import { markSuccessAnsweredSql, markSuccessAnsweredValues, type AnswerOf } from './journal-row-end-sql.js'
import { claimSql, claimValues, keyedByNonceSpace, nonceSpaceOf, type ClaimOf } from './journal-claim-sql.js'
import { permit2ClaimSql } from './journal-permit2-claim-sql.js'
import {
  markMinedSql,
  markMinedValues,
  markSubmittedSql,
  markSubmittedValues,
  type AttemptOf,
  type ReceiptOf,
} from './journal-sql.js'
import { asError, perTickBatch } from './per-tick-batch.js'
import { refusedByTheDatabase, type RunStatement, type StatementResult } from './journal-statements.js'
import { decodeClaimRow, decodeIdRow, decodeMinedRow, type ClaimRow } from './settlement-row.js'

/** The journal's writes that calls of one tick share: one statement per tick for each (docs/ARCHITECTURE.md §5). */
export interface BatchedWrites {
  readonly claim: (claim: ClaimOf) => Promise<ClaimResult>
  readonly markSubmitted: (item: AttemptOf) => Promise<Transition>
  readonly markMined: (item: ReceiptOf) => Promise<MinedAndMarked>
  /** Two calls for one row go in separate statements: the first applied, the second stale. */
  readonly markSuccessAnswered: (item: AnswerOf) => Promise<Transition>
}

const keyString = (key: SettlementKey): string =>
  `${key.network}|${key.asset.toLowerCase()}|${key.payer.toLowerCase()}|${key.nonce.toLowerCase()}`

/** A claim's key: in its nonce space (docs/ARCHITECTURE.md §5, "Nonce spaces"). */
const claimKey = ({ settlement: s }: ClaimOf): string =>
  `${s.network}|${nonceSpaceOf(s)}|${s.payer.toLowerCase()}|${s.nonce.toLowerCase()}`

/** Postgres refused the statement for a unique index another writer's row already holds: the next snapshot sees it. */
const lostRace = (error: unknown): boolean =>
  refusedByTheDatabase(error) && (error as { readonly code?: string }).code === '23505'

const refKey = ({ ref }: { readonly ref: { readonly id: string } }): string => ref.id

/**
 * What the claim statement's row for one authorization says; `undefined`: no answer yet. No row means the conflicting
 * row was committed after the statement's snapshot was taken; a `released` one, that someone else claimed it again
 * meanwhile. Either way the next snapshot tells.
 */
const claimAnswer = (row: ClaimRow | undefined): ClaimResult | undefined => {
  if (row?.claimed === true) return { _tag: 'Claimed', settlement: row.settlement }
  if (row !== undefined && (row.held || row.settlement.state !== 'released'))
    return { _tag: 'Conflict', existing: row.settlement }
  return undefined
}

const appliedByRef = (
  items: ReadonlyArray<{ readonly ref: { readonly id: string } }>,
  result: StatementResult,
): Transition[] => {
  const applied = new Set(result.rows.map(decodeIdRow))
  return items.map(({ ref }) => (applied.has(ref.id) ? 'applied' : 'stale'))
}

export const makeBatchedWrites = (run: RunStatement, claimRetries: number): BatchedWrites => {
  const claimOne = async (claim: ClaimOf): Promise<ClaimResult> => {
    const values = claimValues([claim])
    const sql = keyedByNonceSpace(claim.settlement) ? permit2ClaimSql : claimSql
    for (let attempt = 1; attempt <= claimRetries; attempt++) {
      const answer = await run(sql, values).then(
        (result) => claimAnswer(result.rows.map(decodeClaimRow)[0]),
        (error: unknown) => {
          if (lostRace(error) && attempt < claimRetries) return undefined
          throw error
        },
      )
      if (answer !== undefined) return answer
    }
    throw new Error(`the authorization's row kept changing during ${claimRetries} attempts`)
  }

  /** EIP-3009 claims share one statement; a claim keyed by its nonce space (Permit2) goes alone. */
  const claimMany = async (claims: ReadonlyArray<ClaimOf>): Promise<ReadonlyArray<ClaimResult | Error>> => {
    const shared = claims.filter((claim) => !keyedByNonceSpace(claim.settlement))
    const rows = shared.length === 0 ? [] : (await run(claimSql, claimValues(shared))).rows.map(decodeClaimRow)
    const byKey = new Map(rows.map((row) => [keyString(row.settlement), row]))
    // An authorization its snapshot could not decide goes alone, as `claim` does; its failure is its own.
    return Promise.all(
      claims.map(
        (claim) =>
          (keyedByNonceSpace(claim.settlement) ? undefined : claimAnswer(byKey.get(keyString(claim.settlement)))) ??
          claimOne(claim).catch(asError),
      ),
    )
  }

  /** A guarded transition, batched: calls naming one row go in separate statements. */
  const transitionBatch = <I extends { readonly ref: { readonly id: string } }>(
    sql: string,
    values: (items: ReadonlyArray<I>) => unknown[][],
  ) => {
    const many = async (items: ReadonlyArray<I>) => appliedByRef(items, await run(sql, values(items)))
    return perTickBatch({ one: async (item: I) => (await many([item]))[0]!, many, keyOf: refKey, refusedByTheDatabase })
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
    claim: perTickBatch({
      one: claimOne,
      many: claimMany,
      keyOf: claimKey,
      refusedByTheDatabase,
    }),
    markSubmitted: transitionBatch(markSubmittedSql, markSubmittedValues),
    markMined: perTickBatch({
      one: async (item: ReceiptOf) => (await minedMany([item]))[0]!,
      many: minedMany,
      keyOf: refKey,
      refusedByTheDatabase,
    }),
    markSuccessAnswered: transitionBatch(markSuccessAnsweredSql, markSuccessAnsweredValues),
  }
}
