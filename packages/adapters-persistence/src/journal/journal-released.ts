import { canonical } from './journal-sql.js'
import type { JournalScope, ReleasedRowsJournal, Transition } from '@x402-facilitator/domain'
import { endReleasedWatchSql, findReleasedToJudgeSql, markReleasedMinedSql } from './journal-released-sql.js'
import { routeFilter } from './journal-scope.js'
import { journalCall, type RunStatement } from './journal-statements.js'
import { decodeSettlementRow } from './settlement-row.js'

/** The journal's calls on released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5). */
export const releasedRowCalls = (run: RunStatement, timeoutMs: number, scope?: JournalScope): ReleasedRowsJournal => {
  const route = routeFilter(scope)
  const findSql = findReleasedToJudgeSql(route.sql)
  const guarded = (operation: string, sql: string, values: ReadonlyArray<unknown>) =>
    journalCall(operation, timeoutMs, async (): Promise<Transition> =>
      ((await run(sql, values)).rowCount ?? 0) > 0 ? 'applied' : 'stale',
    )
  return {
    findReleasedToJudge: (limit, after) =>
      journalCall('findReleasedToJudge', timeoutMs, async () => {
        const cursor = after === undefined ? ['-infinity', '0'] : [after.updatedAt, after.id]
        return (await run(findSql, [...route.values, ...cursor, limit])).rows.map(decodeSettlementRow)
      }),
    markReleasedMined: (ref, receipt) =>
      guarded('markReleasedMined', markReleasedMinedSql, [
        canonical(receipt.txHash),
        receipt.blockNumber.toString(),
        receipt.blockHash === undefined ? null : canonical(receipt.blockHash),
        receipt.gasUsed.toString(),
        ref.id,
        ref.generation,
      ]),
    endReleasedWatch: (ref) => guarded('endReleasedWatch', endReleasedWatchSql, [ref.id, ref.generation]),
  }
}
