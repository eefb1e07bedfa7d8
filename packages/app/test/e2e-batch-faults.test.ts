import { startDedicatedPostgres, type DedicatedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import {
  anvilRpc,
  chainBackToNormal,
  FAULT_TIMINGS,
  pooledFrom,
  isSettled,
  receiptOf,
} from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { freshAddress, paymentFromPayer } from './support/payments-on-chain.js'
import {
  BATCHING_ON,
  startTestFacilitator,
  type PaymentBody,
  type TestFacilitator,
} from './support/test-facilitator.js'

/**
 * The three payments after the first go as one settler call as soon as all three wait, however far apart a busy
 * machine lets them arrive (within the long window).
 */
const BATCH_OF_THREE = { ...BATCHING_ON, BATCH_MAX_ITEMS: '3', BATCH_WINDOW_MS: '2000' }

const pooled = (f: TestFacilitator) => pooledFrom(f.chain.rpcUrl, f.chain.facilitator.address)

/**
 * With mining off, payments sent at once: the first goes alone (nothing was being signed), the others wait for it
 * and go together in one settler call. Answers the settles (in `bodies` order) and the batch in the pool.
 */
const lonePlusBatch = async (f: TestFacilitator, bodies: ReadonlyArray<PaymentBody>, maxTimeoutSeconds = 1) => {
  await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
  for (const body of bodies) body.paymentRequirements.maxTimeoutSeconds = maxTimeoutSeconds
  const answers = Promise.all(bodies.map((body) => f.post('settle', body)))
  const batch = await waitFor('the batch in the pool', async () =>
    (await pooled(f)).find((tx) => tx.to.toLowerCase() === f.running.settler!.address),
  )
  await waitFor('every payment in the pool', async () =>
    (await rowsPaying(f, bodies[0]!.paymentRequirements.payTo as Address)).every((r) => r.state === 'submitted')
      ? true
      : undefined,
  )
  return { answers, batch }
}

const rowsPaying = async (f: TestFacilitator, payee: Address) => (await f.rows()).filter((r) => r.payee === payee)
const paidOnce = async (f: TestFacilitator, payee: Address, bodies: ReadonlyArray<PaymentBody>) =>
  expect(await f.balanceOf(payee)).to.equal(
    bodies.reduce((sum, b) => sum + BigInt(b.paymentPayload.payload.authorization.value), 0n),
  )
const paymentsTo = (f: TestFacilitator, payee: Address, count: number) =>
  Promise.all(Array.from({ length: count }, (_, n) => paymentFromPayer(f, n % 3, payee, 3_000n + BigInt(n))))

describe('faults with batches: dropped, stuck, chain paused (docs/ARCHITECTURE.md §5.7; real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ ...FAULT_TIMINGS, ...BATCH_OF_THREE })
  })
  after(() => f?.stop())
  afterEach(() => chainBackToNormal(f.chain))

  it('a batch dropped by the node is re-sent once from its stored bytes; every row of it settles, each paid once', async () => {
    const payee = freshAddress()
    const bodies = await paymentsTo(f, payee, 4)
    const { answers, batch } = await lonePlusBatch(f, bodies)
    expect((await answers).map((a) => a.status)).to.deep.equal([202, 202, 202, 202])
    await anvilRpc(f.chain.rpcUrl, 'anvil_dropTransaction', [batch.hash])
    await waitFor('the stored batch re-sent', async () =>
      (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [batch.hash])) ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('every row settled', async () =>
      (await rowsPaying(f, payee)).every((r) => isSettled(r.state)) ? true : undefined,
    )
    expect((await rowsPaying(f, payee)).filter((r) => r.tx_hash === batch.hash).length).to.be.at.least(2)
    await paidOnce(f, payee, bodies)
  })

  it('a batch left unmined gets one replacement for all its rows (same nonce, same payments, raised fees); the mined one settles them, once', async () => {
    const payee = freshAddress()
    const bodies = await paymentsTo(f, payee, 4)
    const { answers, batch } = await lonePlusBatch(f, bodies)
    await answers
    const rows = (await rowsPaying(f, payee)).filter((r) => r.tx_hash === batch.hash)
    expect(rows.length).to.be.at.least(2)
    const attempts = await waitFor(
      'a replacement on every row of the batch',
      async () => {
        const found = (await f.db
          .knex('settlement_attempts')
          .whereIn(
            'settlement_id',
            rows.map((r) => r.id as string),
          )
          .orderBy('id')) as Array<Record<string, string | number>>
        return found.length >= 2 * rows.length ? found : undefined
      },
      20_000,
    )
    const replacement = attempts.find((a) => a.tx_hash !== batch.hash)!
    for (const row of rows) {
      const own = attempts.filter((a) => a.settlement_id === row.id)
      expect(own.map((a) => a.tx_hash)).to.deep.equal([batch.hash, replacement.tx_hash])
      expect(own[1]!.batch_index).to.equal(own[0]!.batch_index)
      expect(own[1]!.account_nonce).to.equal(own[0]!.account_nonce)
      expect(BigInt(own[1]!.max_fee_per_gas!) * 10n >= BigInt(own[0]!.max_fee_per_gas!) * 11n).to.equal(true)
    }
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('every row settled', async () =>
      (await rowsPaying(f, payee)).every((r) => isSettled(r.state)) ? true : undefined,
    )
    const mined = (
      await Promise.all([batch.hash, replacement.tx_hash as Hex].map((h) => receiptOf(f.chain.rpcUrl, h)))
    ).filter((r) => r !== null)
    expect(mined).to.have.length(1)
    await paidOnce(f, payee, bodies)
  })

  it('the node paused with a batch in flight: its settles answer 202, and the journal completes each once the chain is back', async () => {
    const payee = freshAddress()
    const bodies = await paymentsTo(f, payee, 4)
    const { answers, batch } = await lonePlusBatch(f, bodies)
    await f.chain.pause()
    const answered = await answers
    expect(answered.map((a) => a.status)).to.deep.equal([202, 202, 202, 202])
    expect(answered.filter((a) => a.body.txHash === batch.hash).length).to.be.at.least(2)
    f.chain.resume()
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('every row settled', async () =>
      (await rowsPaying(f, payee)).every((r) => isSettled(r.state)) ? true : undefined,
    )
    await paidOnce(f, payee, bodies)
  })
})

describe('Postgres down after a batch is broadcast (real app, anvil, a Postgres of its own)', function () {
  this.timeout(120_000)
  let pg: DedicatedPostgres
  let f: TestFacilitator
  before(async () => {
    pg = await startDedicatedPostgres()
    f = await startTestFacilitator({ ...FAULT_TIMINGS, ...BATCH_OF_THREE, DATABASE_URL: pg.connectionString })
  })
  after(async () => {
    await f?.stop()
    await pg?.dispose()
  })
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it("each client of the batch gets 202 (no success unmarked); Postgres back, the rows are completed and each client's retry gets its success", async () => {
    const payee = freshAddress()
    const bodies = await paymentsTo(f, payee, 4)
    const { answers: settles, batch } = await lonePlusBatch(f, bodies, 30)
    await pg.stop()
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const answers = await settles
    expect(answers.map((a) => a.status)).to.deep.equal([202, 202, 202, 202])
    expect(answers.filter((a) => a.body.txHash === batch.hash).length).to.be.at.least(2)
    await pg.start()
    await waitFor(
      'the rows settled',
      async () => {
        const rows = await rowsPaying(f, payee).catch(() => [])
        return rows.length === 4 && rows.every((r) => isSettled(r.state)) ? true : undefined
      },
      30_000,
      300,
    )
    await waitFor('the replica lock held again', async () =>
      (await fetch(f.base.replace(/\/api\/facilitator$/, '/readyz'))).status === 200 ? true : undefined,
    )
    const retries = await Promise.all(bodies.map((body) => f.post('settle', body)))
    expect(retries.map((r) => [r.body.success, r.body.txHash])).to.deep.equal(answers.map((a) => [true, a.body.txHash]))
    await paidOnce(f, payee, bodies)
  })
})
