import { expect } from 'chai'
import { findReleasedToJudgeSql } from '../src/journal/journal-released-sql.js'
import { routeFilter } from '../src/journal/journal-scope.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

interface PlanNode {
  readonly 'Index Name'?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const indexesOf = (node: PlanNode): ReadonlyArray<string> => [
  ...(node['Index Name'] === undefined ? [] : [node['Index Name']]),
  ...(node.Plans ?? []).flatMap(indexesOf),
]

/**
 * Recovery looks for released rows to judge on every pass of every lane (docs/ARCHITECTURE.md §5.5): the look must be
 * answerable from the partial index of journal-indexes.ts, not by reading the whole journal.
 */
describe("recovery's look for released rows to judge", () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(async () => {
    await db.drop()
  })

  it('can be answered from settlements_chain_released_unjudged_idx', async () => {
    const route = routeFilter({ chainId: 'eip155:84532', asset: `0x${'1'.repeat(40)}` })
    const plan = await db.knex.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off')
      const values = [...route.values, '-infinity', '0', 100] as ReadonlyArray<string | number>
      const explained = await trx.raw(`explain (format json) ${findReleasedToJudgeSql(route.sql)}`, values)
      return (explained.rows[0]['QUERY PLAN'] as ReadonlyArray<{ Plan: PlanNode }>)[0]!.Plan
    })
    expect(indexesOf(plan)).to.include('settlements_chain_released_unjudged_idx')
  })
})
