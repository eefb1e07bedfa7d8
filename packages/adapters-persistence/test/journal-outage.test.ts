import { readdirSync, readFileSync } from 'node:fs'
import { expect } from 'chai'
import type { Knex } from 'knex'
import type { SettlementJournal } from '@x402-facilitator/domain'
import { createKnex, silentKnexLog } from '../src/create-knex.js'
import { makeKnexSettlementJournal } from '../src/knex-settlement-journal.js'
import { migrateToLatest } from '../src/migrate-to-latest.js'
import { type DedicatedPostgres, startDedicatedPostgres } from '../src/test-database.js'
import { left, newSettlement, right } from './samples.js'

const boundMs = 1_500
const slackMs = 500

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

const timed = async <A>(f: () => Promise<A>): Promise<{ value: A; ms: number }> => {
  const started = Date.now()
  const value = await f()
  return { value, ms: Date.now() - started }
}

describe('KnexSettlementJournal: Postgres outages', function () {
  this.timeout(60_000)
  let server: DedicatedPostgres
  let knex: Knex
  let journal: SettlementJournal

  before(async () => {
    server = await startDedicatedPostgres()
    knex = createKnex({ connectionString: server.connectionString, timeoutMs: boundMs, log: silentKnexLog })
    await migrateToLatest(knex)
    journal = makeKnexSettlementJournal(knex, { timeoutMs: boundMs })
  })
  after(async () => {
    await knex?.destroy()
    await server?.dispose()
  })

  it('answers JournalUnavailable within the bound while Postgres is stopped, and works again once restarted', async () => {
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
    await server.stop()
    for (const call of [() => left(journal.claim(newSettlement())), () => left(journal.findByKey(newSettlement()))]) {
      const { value, ms } = await timed(call)
      expect(value._tag).to.equal('JournalUnavailable')
      expect(value.reason).to.be.a('string').and.not.equal('')
      expect(ms).to.be.below(boundMs + slackMs)
    }
    await server.start()
    // The same adapter and pool: dead connections are dropped, new ones made.
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
    expect((await right(journal.findUnfinished(new Date(Date.now() + 60_000), 10))).length).to.equal(2)
  })

  it('answers JournalUnavailable within the bound while Postgres hangs, and recovers when it resumes', async () => {
    // A warm pool: the hang hits both a connection in use and new ones.
    await right(journal.findByKey(newSettlement()))
    const pid = server.pid()
    if (pid === undefined) throw new Error('server not running')
    const processes = serverProcesses(pid)
    try {
      for (const p of processes) process.kill(p, 'SIGSTOP')
      const calls = [() => left(journal.claim(newSettlement())), () => left(journal.findByTxHash(`0x${'ab'.repeat(32)}`))]
      const outcomes = await Promise.all(calls.map((call) => timed(call)))
      for (const { value, ms } of outcomes) {
        expect(value._tag).to.equal('JournalUnavailable')
        expect(ms).to.be.below(boundMs + slackMs)
      }
    } finally {
      for (const p of processes) process.kill(p, 'SIGCONT')
    }
    // Give the client-side timeouts of the hung connections time to discard them.
    await new Promise((resolve) => setTimeout(resolve, boundMs * 2 + 200))
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
  })
})
