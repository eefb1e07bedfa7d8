import { startDedicatedPostgres, type DedicatedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import { expect } from 'chai'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'

const origin = (f: TestFacilitator) => new URL(f.base).origin
/** A counter's value, summed over its series (the RPC requests are counted per network). */
const counter = (text: string, name: string) => {
  const values = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))].map((m) => Number(m[1]))
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0)
}

/** What the service sent to Postgres (journal pool and knex pool) and to the node so far, from its own counters. */
const sent = async (f: TestFacilitator) => {
  const text = await (await fetch(`${origin(f)}/metrics`)).text()
  return {
    statements:
      counter(text, 'facilitator_journal_statements_total') + counter(text, 'facilitator_knex_statements_total'),
    rpcRequests: counter(text, 'facilitator_rpc_requests_total'),
  }
}

type ReadinessBody = {
  status: string
  failing?: string[]
  ageSeconds: number | null
  checks: Record<string, { ok: boolean; detail: string }>
}
const readiness = async (f: TestFacilitator) => {
  const res = await fetch(`${origin(f)}/readyz`)
  return { status: res.status, body: (await res.json()) as ReadinessBody }
}

/**
 * Issue 23 item 6: anonymous scrapes cost nothing downstream; the probes read a snapshot refreshed in the background.
 */
describe('/metrics and /readyz answer from a snapshot: scrapes cost Postgres and the node nothing (real app)', function () {
  this.timeout(180_000)
  let f: TestFacilitator
  before(async () => {
    // Nothing else runs on a timer meanwhile: the snapshot, the head poll and recovery wait a minute.
    f = await startTestFacilitator({
      PROBE_REFRESH_MS: '60000',
      HEAD_POLL_MS: '60000',
      RECOVERY_INTERVAL_MS: '3600000',
    })
    // The finality watcher's first check runs just after start-up (its next a minute later): not during the scrapes.
    await waitFor("the finality watcher's first check", async () => {
      const text = await (await fetch(`${origin(f)}/metrics`)).text()
      return ['blocksToWatch', 'ownersWithOpenRows'].every(
        (call) => counter(text, `facilitator_journal_call_duration_seconds_count\\{[^}]*call="${call}"[^}]*\\}`) > 0,
      )
    })
  })
  after(() => f?.stop())

  it('N scrapes of each send a bounded number of statements and RPC requests, whatever N', async () => {
    for (const scrapes of [20, 200]) {
      const before = await sent(f)
      for (let i = 0; i < scrapes; i += 10) {
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            expect((await fetch(`${origin(f)}/metrics`)).status).to.equal(200)
            expect((await readiness(f)).status).to.equal(200)
          }),
        )
      }
      const after = await sent(f)
      expect(after.rpcRequests - before.rpcRequests, `RPC requests for ${scrapes} scrapes`).to.be.at.most(2)
      expect(after.statements - before.statements, `statements for ${scrapes} scrapes`).to.be.at.most(2)
    }
  })

  it('the answers say how old their snapshot is', async () => {
    const { body } = await readiness(f)
    // Read at start-up, a minute between refreshes: as old as the time since.
    expect(body.ageSeconds).to.be.a('number').and.to.be.at.least(0).and.below(60)
    const later = await waitFor('the snapshot to age', async () => {
      const again = (await readiness(f)).body.ageSeconds!
      return again > body.ageSeconds! ? again : undefined
    })
    expect(later).to.be.greaterThan(body.ageSeconds!)
    const metrics = await (await fetch(`${origin(f)}/metrics`)).text()
    expect(metrics).to.match(/^facilitator_probe_snapshot_age_seconds \d/m)
  })
})

describe('/readyz from its snapshot still fails when Postgres stops, and recovers (real app, a Postgres of its own)', function () {
  this.timeout(180_000)
  let pg: DedicatedPostgres
  let f: TestFacilitator
  before(async () => {
    pg = await startDedicatedPostgres()
    f = await startTestFacilitator({
      PROBE_REFRESH_MS: '200',
      DB_TIMEOUT_MS: '1000',
      DATABASE_URL: pg.connectionString,
    })
  })
  after(async () => {
    await f?.stop()
    await pg?.dispose()
  })

  it('Postgres stopped: 503 naming database (the chain still ready); started again: 200', async () => {
    expect((await readiness(f)).status).to.equal(200)
    await pg.stop()
    try {
      const down = await waitFor('/readyz naming the database', async () => {
        const answer = await readiness(f)
        return answer.body.failing?.includes('database') ? answer : undefined
      })
      expect(down.status).to.equal(503)
      expect(down.body.failing).to.not.include('chain')
      const metrics = await (await fetch(`${origin(f)}/metrics`)).text()
      // prom-client writes NaN as `Nan`.
      expect(metrics).to.match(/^facilitator_settlements\{state="claimed"\} Nan$/m)
    } finally {
      await pg.start()
    }
    await waitFor('/readyz ready again', async () => ((await readiness(f)).status === 200 ? true : undefined))
  })
})
