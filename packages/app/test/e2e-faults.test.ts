import { expect } from 'chai'
import { startDedicatedPostgres, type DedicatedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import {
  anvilRpc,
  chainBackToNormal,
  FAULT_TIMINGS,
  hasPendingTransaction,
  isSettled,
  receiptOf,
  SETTLED_STATES,
} from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const rowOf = async (f: TestFacilitator, txHash: unknown) => {
  const rows = await f.rows()
  return rows.find((r) => r.tx_hash === txHash || r.id === txHash)
}
const attemptsOf = async (f: TestFacilitator, settlementId: unknown) =>
  (await f.db.knex('settlement_attempts').where({ settlement_id: settlementId }).orderBy('id')) as Array<
    Record<string, string>
  >
const pendingNonce = async (f: TestFacilitator) =>
  BigInt(
    (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, 'pending'])) as string,
  )

describe('faults: chain paused, receipts late, transactions dropped or stuck (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator(FAULT_TIMINGS)
  })
  after(() => f?.stop())
  afterEach(() => chainBackToNormal(f.chain))

  it('chain paused → verify and settle answer 503 (bounded by RPC_TIMEOUT_MS, not a hang); resumed → works again without a restart', async () => {
    const body = await f.payment()
    await f.chain.pause()
    const [verify, settle] = await Promise.all([f.post('verify', body), f.post('settle', body)])
    expect(verify.status).to.equal(503)
    expect(verify.headers.get('retry-after')).to.match(/^\d+$/)
    expect(verify.body).to.include({ valid: false, reasonCode: 'service_unavailable' })
    expect(settle.status).to.equal(503)
    expect(settle.body).to.include({ success: false, errorCode: 'service_unavailable' })
    f.chain.resume()
    const after = await f.post('settle', body)
    expect(after.body).to.include({ success: true })
  })

  it('a settle already broadcast when the node pauses answers 202 settlement_pending, and the journal completes it', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment()
    body.paymentRequirements.maxTimeoutSeconds = 2
    const answer = f.post('settle', body)
    await waitFor('the transaction in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    await f.chain.pause()
    const res = await answer
    expect(res.status).to.equal(202)
    expect(res.body).to.include({ success: false, errorCode: 'settlement_pending' })
    f.chain.resume()
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const row = await waitFor('the row confirmed', async () => {
      const r = await rowOf(f, res.body.txHash)
      return isSettled(r?.state) ? r : undefined
    })
    expect(row.block_number).to.be.a('string')
  })

  it("receipt not in time → 202 with the hash; the journal follows it to its end; the caller's retry gets the one success, a later settle is refused", async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 1 })
    body.paymentRequirements.maxTimeoutSeconds = 1
    const res = await f.post('settle', body)
    expect(res.status).to.equal(202)
    expect(res.body).to.include({ success: false, errorCode: 'settlement_pending' })
    expect(res.body.txHash).to.match(/^0x[0-9a-f]{64}$/)
    expect((await rowOf(f, res.body.txHash))?.state).to.equal('submitted')
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the row confirmed', async () =>
      isSettled((await rowOf(f, res.body.txHash))?.state) ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    // The same caller's same request after its 202 (what the official x402 resource server does): its one success.
    const retry = await f.post('settle', body)
    expect(retry.body).to.include({ success: true, txHash: res.body.txHash })
    const again = await f.post('settle', body)
    expect(again.body).to.include({ success: false, errorCode: 'authorization_already_used', txHash: res.body.txHash })
    expect(again.body.settlementState).to.be.oneOf(SETTLED_STATES)
  })

  it('a transaction dropped by the node is re-sent from its stored raw bytes and settles the row', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 2 })
    body.paymentRequirements.maxTimeoutSeconds = 1
    const res = await f.post('settle', body)
    expect(res.status).to.equal(202)
    await anvilRpc(f.chain.rpcUrl, 'anvil_dropTransaction', [res.body.txHash])
    expect(await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [res.body.txHash])).to.equal(null)
    await waitFor('the stored bytes re-sent', async () =>
      (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [res.body.txHash])) ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the row confirmed', async () =>
      isSettled((await rowOf(f, res.body.txHash))?.state) ? true : undefined,
    )
    expect((await receiptOf(f.chain.rpcUrl, res.body.txHash as string))?.status).to.equal('0x1')
  })

  it('a transaction left unmined gets a new attempt at the same nonce with raised fees; the mined one settles the row, once', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    const body = await f.payment({ value: 4_000_000n })
    body.paymentRequirements.amount = '4000000'
    body.paymentRequirements.maxTimeoutSeconds = 1
    const res = await f.post('settle', body)
    expect(res.status).to.equal(202)
    const row = (await rowOf(f, res.body.txHash))!
    const attempts = await waitFor(
      'a replacement attempt',
      async () => {
        const found = await attemptsOf(f, row.id)
        return found.length >= 2 ? found : undefined
      },
      20_000,
    )
    expect(attempts[1]!.account_nonce).to.equal(attempts[0]!.account_nonce)
    expect(BigInt(attempts[1]!.max_fee_per_gas!) * 10n >= BigInt(attempts[0]!.max_fee_per_gas!) * 11n).to.equal(true)
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const settled = await waitFor('the row confirmed', async () => {
      const r = (await f.rows()).find((x) => x.id === row.id)
      return isSettled(r?.state) ? r : undefined
    })
    const hashes = attempts.map((a) => a.tx_hash)
    expect(hashes).to.include(settled.tx_hash)
    const mined = (await Promise.all(hashes.map((h) => receiptOf(f.chain.rpcUrl, h!)))).filter((r) => r !== null)
    expect(mined).to.have.length(1)
    expect(await f.balanceOf(payer)).to.equal(before - 4_000_000n)
  })
})

describe('faults: Postgres down before and after the broadcast (real app, anvil, a Postgres of its own)', function () {
  this.timeout(120_000)
  let pg: DedicatedPostgres
  let f: TestFacilitator
  before(async () => {
    pg = await startDedicatedPostgres()
    f = await startTestFacilitator({ ...FAULT_TIMINGS, DATABASE_URL: pg.connectionString })
  })
  after(async () => {
    await f?.stop()
    await pg?.dispose()
  })

  it('down before the broadcast → 503 and nothing broadcast; back → settles again', async () => {
    const body = await f.payment()
    const nonceBefore = await pendingNonce(f)
    await pg.stop()
    const res = await f.post('settle', body)
    expect(res.status).to.equal(503)
    expect(res.body).to.include({ success: false, errorCode: 'service_unavailable' })
    expect(await pendingNonce(f)).to.equal(nonceBefore)
    await pg.start()
    // The replica lock died with Postgres' connections: settling resumes once it is taken back (ARCHITECTURE.md §5.5).
    await waitFor('the replica lock held again', async () =>
      (await fetch(f.base.replace(/\/api\/facilitator$/, '/readyz'))).status === 200 ? true : undefined,
    )
    expect((await f.post('settle', body)).body).to.include({ success: true })
  })

  it('down after the broadcast → 202 with the transaction (no success the journal cannot mark); back → the row is completed and the retry gets the success', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    try {
      const body = await f.payment({ payer: 1 })
      const answer = f.post('settle', body)
      const row = await waitFor('the attempt recorded', async () =>
        (await f.rows()).find((r) => r.state === 'submitted'),
      )
      await pg.stop()
      await anvilRpc(f.chain.rpcUrl, 'evm_mine')
      const res = await answer
      expect(res.status).to.equal(202)
      expect(res.body).to.include({ success: false, errorCode: 'settlement_pending', txHash: row.tx_hash })
      await pg.start()
      await waitFor(
        'the row confirmed',
        async () =>
          (await f.rows().catch(() => [])).find((r) => r.id === row.id && isSettled(r.state)) ? true : undefined,
        30_000,
        300,
      )
      await waitFor('the replica lock held again', async () =>
        (await fetch(f.base.replace(/\/api\/facilitator$/, '/readyz'))).status === 200 ? true : undefined,
      )
      const retry = await f.post('settle', body)
      expect(retry.body).to.include({ success: true, txHash: row.tx_hash })
      expect((await f.post('settle', body)).body).to.include({
        success: false,
        errorCode: 'authorization_already_used',
      })
    } finally {
      await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    }
  })
})
