import { expect } from 'chai'
import { replicaLockKey } from '@x402-facilitator/adapters-persistence/testing'
import type { Knex } from 'knex'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const root = (f: TestFacilitator) => f.base.replace(/\/api\/facilitator$/, '')
const pendingNonce = async (f: TestFacilitator) =>
  BigInt(
    (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, 'pending'])) as string,
  )
const readiness = async (f: TestFacilitator) => {
  const res = await fetch(`${root(f)}/readyz`)
  return {
    status: res.status,
    body: (await res.json()) as { failing?: string[]; checks: Record<string, { ok: boolean; detail: string }> },
  }
}
const lockHeldGauge = async (f: TestFacilitator) =>
  /^facilitator_replica_lock_held{network="[^"]+",account="0x[0-9a-f]{40}"} (\d)$/m.exec(
    await (await fetch(`${root(f)}/metrics`)).text(),
  )?.[1]

/** The replica lock's backend, found in pg_locks by the lock's key (two 32-bit halves, objsubid 1). */
const LOCK_BACKEND = `from pg_locks where locktype = 'advisory' and objsubid = 1 and granted
  and database = (select oid from pg_database where datname = current_database()) and classid = ?::oid and objid = ?::oid`
const keyHalves = (f: TestFacilitator): [string, string] => {
  const key = BigInt.asUintN(64, BigInt(replicaLockKey(`eip155:${f.chain.chainId}`, f.chain.facilitator.address)))
  return [(key >> 32n).toString(), (key & 0xffffffffn).toString()]
}

describe('replica lock lost: settling stops, /readyz fails, the lock is taken back (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ DB_TIMEOUT_MS: '1000' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('while another session holds the lost lock: settle 503 with no nonce spent, verify works, /readyz names replicaLock; released → settles again', async () => {
    expect((await readiness(f)).status).to.equal(200)
    expect(await lockHeldGauge(f)).to.equal('1')
    const knex: Knex = f.db.knex
    const other = await knex.client.acquireConnection()
    try {
      // Ends the lock's backend and queues for its lock in one statement: this session gets it before the app retries.
      const [high, low] = keyHalves(f)
      await knex
        .raw(`select pg_terminate_backend(pid), pg_advisory_lock(?::bigint) ${LOCK_BACKEND}`, [
          replicaLockKey(`eip155:${f.chain.chainId}`, f.chain.facilitator.address),
          high,
          low,
        ])
        .connection(other)
      // Lost at once, then each attempt to take it back finds the other session holding it.
      const notReady = await waitFor('/readyz saying another session holds the lock', async () => {
        const r = await readiness(f)
        return r.body.checks.replicaLock?.detail.includes('another session holds it') ? r : undefined
      })
      expect(notReady.status).to.equal(503)
      expect(notReady.body.failing).to.deep.equal(['replicaLock'])
      expect(notReady.body.checks.replicaLock?.detail).to.include('lost its Postgres advisory lock')
      expect(await lockHeldGauge(f)).to.equal('0')

      const nonceBefore = await pendingNonce(f)
      const body = await f.payment()
      const refused = await f.post('settle', body)
      expect(refused.status).to.equal(503)
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/)
      expect(refused.body).to.include({ success: false, errorCode: 'service_unavailable' })
      expect(refused.body.error).to.include('lost its Postgres advisory lock')
      expect(await pendingNonce(f)).to.equal(nonceBefore)
      expect(await f.rows()).to.have.length(0)
      expect((await f.post('verify', body)).body).to.include({ valid: true })

      await knex.raw('select pg_advisory_unlock_all()').connection(other)
      await waitFor('/readyz ready again', async () => ((await readiness(f)).status === 200 ? true : undefined))
      expect(await lockHeldGauge(f)).to.equal('1')
      const settled = await f.post('settle', body)
      expect(settled.status).to.equal(200)
      expect(settled.body).to.include({ success: true })
    } finally {
      await knex.raw('select pg_advisory_unlock_all()').connection(other)
      await knex.client.releaseConnection(other)
    }
  })

  it('a settle already broadcast when the lock is lost finishes normally; the lock is re-acquired by itself', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 1 })
    const answer = f.post('settle', body)
    await waitFor('the transaction in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    const lockBackend = async () =>
      ((await f.db.knex.raw(`select pid ${LOCK_BACKEND}`, keyHalves(f))) as { rows: Array<{ pid: number }> }).rows[0]
        ?.pid
    const killed = await lockBackend()
    await f.db.knex.raw(`select pg_terminate_backend(pid) ${LOCK_BACKEND}`, keyHalves(f))
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const res = await answer
    expect(res.status).to.equal(200)
    expect(res.body).to.include({ success: true })
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    await waitFor('the lock held by a new backend', async () => {
      const pid = await lockBackend()
      return pid !== undefined && pid !== killed ? true : undefined
    })
    await waitFor('/readyz ready again', async () => ((await readiness(f)).status === 200 ? true : undefined))
    expect((await f.post('settle', await f.payment({ payer: 2 }))).body).to.include({ success: true })
  })
})
