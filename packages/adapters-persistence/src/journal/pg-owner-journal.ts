import { canonical } from './journal-sql.js'
import type { JournalScope, SettlementJournal } from '@x402-facilitator/domain'
import {
  blocksToWatchSql,
  endWatchSql,
  findInBlockSql,
  markFinalSql,
  ownersWithOpenRowsSql,
} from './journal-finality-sql.js'
import { accountNoncesInFlightSql, findUnfinishedSql } from './journal-read-sql.js'
import { chainFilter, routeFilter } from './journal-scope.js'
import { journalCall, type RunStatement } from './journal-statements.js'
import {
  decodeAccountNonceRow,
  decodeIdRow,
  decodeOwnerRowsRow,
  decodeRecordedBlockRow,
  decodeSettlementRow,
} from './settlement-row.js'

type OwnerKeyed = Pick<
  SettlementJournal,
  | 'markFinal'
  | 'blocksToWatch'
  | 'endWatch'
  | 'ownersWithOpenRows'
  | 'findInBlock'
  | 'accountNoncesInFlight'
  | 'findUnfinished'
>

/**
 * The journal's calls keyed by owner, and recovery's scan (docs/ARCHITECTURE.md §5.5, §5.6): with a scope, each keeps
 * to the route's chain and token (an account's nonces, to its chain); without, to every row, as the previous release.
 */
export const ownerKeyedCalls = (run: RunStatement, timeoutMs: number, scope?: JournalScope): OwnerKeyed => {
  const route = routeFilter(scope)
  const chain = chainFilter(scope)
  const sql = {
    markFinal: markFinalSql(route.sql),
    blocksToWatch: blocksToWatchSql(route.sql),
    endWatch: endWatchSql(route.sql),
    ownersWithOpenRows: ownersWithOpenRowsSql(route.sql),
    findInBlock: findInBlockSql(route.sql),
    accountNoncesInFlight: accountNoncesInFlightSql(chain.sql),
    findUnfinished: findUnfinishedSql(route.sql),
  }
  const rows = async (text: string, values: ReadonlyArray<unknown>) => (await run(text, values)).rows
  return {
    markFinal: (owner, blocks) =>
      journalCall('markFinal', timeoutMs, async () =>
        blocks.length === 0
          ? []
          : (
              await rows(sql.markFinal, [
                blocks.map((b) => b.blockNumber.toString()),
                blocks.map((b) => (b.blockHash === undefined ? null : canonical(b.blockHash))),
                ...route.values,
                canonical(owner),
              ])
            ).map(decodeIdRow),
      ),
    blocksToWatch: (owner, finalFrom, limit) => {
      const of = [...route.values, canonical(owner)]
      return journalCall('blocksToWatch', timeoutMs, async () =>
        (await rows(sql.blocksToWatch, [...of, ...of, finalFrom.toString(), ...of, limit])).map(decodeRecordedBlockRow),
      )
    },
    endWatch: (owner, below) =>
      journalCall('endWatch', timeoutMs, async () =>
        (await rows(sql.endWatch, [...route.values, canonical(owner), below.toString()])).map(decodeIdRow),
      ),
    ownersWithOpenRows: (finalFrom) =>
      journalCall('ownersWithOpenRows', timeoutMs, async () =>
        (await rows(sql.ownersWithOpenRows, [...route.values, finalFrom?.toString() ?? null])).map(decodeOwnerRowsRow),
      ),
    findInBlock: (owner, block) =>
      journalCall('findInBlock', timeoutMs, async () =>
        (
          await rows(sql.findInBlock, [
            ...route.values,
            canonical(owner),
            block.blockNumber.toString(),
            block.blockHash === undefined ? null : canonical(block.blockHash),
          ])
        ).map(decodeSettlementRow),
      ),
    accountNoncesInFlight: (owner) => {
      const o = canonical(owner)
      return journalCall('accountNoncesInFlight', timeoutMs, async () =>
        (await rows(sql.accountNoncesInFlight, [...chain.values, o, o, o])).map(decodeAccountNonceRow),
      )
    },
    findUnfinished: (updatedBefore, limit, after) =>
      journalCall('findUnfinished', timeoutMs, async () => {
        const cursor = after === undefined ? ['-infinity', '0'] : [after.updatedAt, after.id]
        return (await rows(sql.findUnfinished, [...route.values, updatedBefore, ...cursor, limit])).map(
          decodeSettlementRow,
        )
      }),
  }
}
