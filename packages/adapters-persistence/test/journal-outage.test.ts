import { readdirSync, readFileSync } from 'node:fs'
import { expect } from 'chai'
import type { SettlementJournal } from '@x402-facilitator/domain'
import { left, newSettlement, right } from '@x402-facilitator/domain/journal-contract'
import type pg from 'pg'
import { createKnex, silentKnexLog } from '../src/database/create-knex.js'
import { createPgPool } from '../src/database/create-pg-pool.js'
import { migrateToLatest } from '../src/database/migrate-to-latest.js'
import { makePgSettlementJournal } from '../src/journal/pg-settlement-journal.js'
import { type DedicatedPostgres, startDedicatedPostgres } from '../src/testing/test-database.js'

const boundMs = 1_500

/** The postmaster and its backends: all of one server we started. */
const serverProcesses = (postmaster: number): number[] => {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster
      } catch {
        return false
      }
    })
    .map(Number)
  return [postmaster, ...children]
}

describe('PgSettlementJournal: Postgres outages', function () {
  this.timeout(60_000)
  let server: DedicatedPostgres
  let pool: pg.Pool
  let journal: SettlementJournal

  before(async () => {
    server = await startDedicatedPostgres()
    const knex = createKnex({ connectionString: server.connectionString, log: silentKnexLog })
    await migrateToLatest(knex).finally(() => knex.destroy())
    pool = createPgPool({ connectionString: server.connectionString, timeoutMs: boundMs })
    journal = makePgSettlementJournal(pool, { timeoutMs: boundMs })
  })
  after(async () => {
    await pool?.end()
    await server?.dispose()
  })

  it('answers JournalUnavailable while Postgres is stopped, and works again once restarted', async () => {
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
    await server.stop()
    expect(await left(journal.claim(newSettlement())))
      .to.have.property('reason')
      .that.matches(/^claim: ./)
    expect(await left(journal.findByKey(newSettlement())))
      .to.have.property('reason')
      .that.matches(/^findByKey: ./)
    await server.start()
    // The same adapter and pool: dead connections are dropped, new ones made.
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
    expect((await right(journal.findUnfinished(new Date(Date.now() + 60_000), 10))).length).to.equal(2)
  })

  it('answers JournalUnavailable at the bound while Postgres hangs, and recovers when it resumes', async () => {
    // A warm pool: the hang hits both a connection in use and new ones.
    await right(journal.findByKey(newSettlement()))
    const pid = server.pid()
    if (pid === undefined) throw new Error('server not running')
    const processes = serverProcesses(pid)
    try {
      for (const p of processes) process.kill(p, 'SIGSTOP')
      const [claim, lookUp] = await Promise.all([
        left(journal.claim(newSettlement())),
        left(journal.findByTxHash(`0x${'ab'.repeat(32)}`)),
      ])
      expect(claim.reason).to.equal(`claim: no answer from Postgres within ${boundMs} ms`)
      expect(lookUp.reason).to.equal(`findByTxHash: no answer from Postgres within ${boundMs} ms`)
    } finally {
      for (const p of processes) process.kill(p, 'SIGCONT')
    }
    // Until the statements sent during the hang are answered or timed out on the client, their connections stay out.
    while (pool.idleCount < pool.totalCount) await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
  })
})
