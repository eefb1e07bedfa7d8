import { expect } from 'chai'
import { createPgPool, type PgPool } from '../src/database/create-pg-pool.js'
import { makeStatementRunner } from '../src/journal/journal-statements.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'
import { type BackendTerminator, startBackendTerminator } from './backend-terminator.js'

/**
 * Postgres sends FATAL 57P01 to every connection when it shuts down. An 'error' that pg emits on a client nobody
 * listens to is thrown by EventEmitter and ends the process: each test below fails with that uncaught error if some
 * moment of a pooled client's life has no listener.
 */
describe('the journal pool: a connection Postgres terminates', function () {
  this.timeout(60_000)
  const applicationName = `x402 test pool ${process.pid}`
  let db: TestDatabase
  let terminator: BackendTerminator
  const pools: PgPool[] = []
  const newPool = () => {
    const pool = createPgPool({ connectionString: db.connectionString, applicationName, timeoutMs: 10_000 })
    pools.push(pool)
    return { pool, run: makeStatementRunner(pool) }
  }

  before(async () => {
    db = await createTestDatabase({ migrate: false })
    terminator = await startBackendTerminator(db.connectionString)
  })
  after(async () => {
    await terminator?.stop()
    await Promise.all(pools.map((pool) => pool.end()))
    await db?.drop()
  })

  it('as it opens (the FATAL read with its ReadyForQuery, before the pool hands it out): the statement fails, the process lives, the next one works', async () => {
    // An attempt whose client read its ReadyForQuery before the FATAL was sent proves nothing: another, on a new pool.
    for (let attempt = 1; ; attempt++) {
      const { run } = newPool()
      let settled = false
      const statement = run('select 1 as ok', [])
        .then(
          () => 'answered',
          (error: Error) => error.message,
        )
        .finally(() => (settled = true))
      const terminated = await terminator.terminateOnceIdle(applicationName, '', () => settled)
      const outcome = await statement
      // (Its pool is ended with the others, in `after`.)
      if (!terminated && attempt < 10) continue
      expect(terminated, 'terminated as it opened').to.equal(true)
      expect(outcome).to.not.equal('answered')
      expect((await run('select 1 as ok', [])).rows).to.deep.equal([{ ok: 1 }])
      return
    }
  })

  it("as a statement completes (the FATAL read with the statement's answer): the answer is kept, the connection dropped", async () => {
    const { pool, run } = newPool()
    await run('select 1 as ok', [])
    let terminated = 0
    // Called just before the statement is written; the microtask runs once it is.
    const onStatement = () =>
      queueMicrotask(() => (terminated = terminator.terminateWhenAnswered(applicationName, 'select 2 as ok')))
    const statement = makeStatementRunner(pool, onStatement)('select 2 as ok', [])
    expect((await statement).rows).to.deep.equal([{ ok: 2 }])
    expect(terminated).to.equal(1)
    expect(pool.totalCount).to.equal(0)
    expect((await run('select 3 as ok', [])).rows).to.deep.equal([{ ok: 3 }])
  })
})
