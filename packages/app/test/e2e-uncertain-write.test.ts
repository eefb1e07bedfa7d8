import { expect } from 'chai'
import { startDedicatedPostgres, type DedicatedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import { anvilRpc, isSettled } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startStallingProxy, type StallingProxy } from './support/stalling-proxy.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const accountNonce = async (f: TestFacilitator, block: 'latest' | 'pending') =>
  BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, block])) as string)

describe("faults: the attempt's write commits but its answer is lost (real app, anvil, Postgres behind a proxy)", function () {
  this.timeout(120_000)
  let pg: DedicatedPostgres
  let proxy: StallingProxy
  let f: TestFacilitator
  before(async () => {
    pg = await startDedicatedPostgres()
    proxy = await startStallingProxy({ host: '127.0.0.1', port: pg.port })
    const proxied = new URL(pg.connectionString)
    proxied.port = String(proxy.port)
    f = await startTestFacilitator({
      DATABASE_URL: proxied.toString(),
      DB_TIMEOUT_MS: '1000',
      RPC_TIMEOUT_MS: '1000',
      RECOVERY_INTERVAL_MS: '300',
      RECEIPT_TIMEOUT_SECONDS: '2',
    })
  })
  after(async () => {
    proxy?.release()
    await f?.stop()
    await proxy?.close()
    await pg?.dispose()
  })

  it('answers 202 with the transaction (never 503 "nothing happened"); the stored attempt is broadcast and settles once', async () => {
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    const minedBefore = await accountNonce(f, 'latest')
    const body = await f.payment({ value: 7_000n })
    body.paymentRequirements.amount = '7000'
    proxy.arm(/update settlements s set state = 'submitted'/)
    const res = await f.post('settle', body)
    expect(proxy.tripped(), 'the attempt was written').to.equal(true)
    expect(res.status).to.equal(202)
    expect(res.body).to.include({ success: false, errorCode: 'settlement_pending' })
    expect(res.body.txHash).to.match(/^0x[0-9a-f]{64}$/)
    proxy.release()

    const row = await waitFor('the row confirmed', async () => {
      const found = (await f.rows()).find((r) => r.payer === payer && r.value === '7000')
      return isSettled(found?.state) ? found : undefined
    })
    expect(row.tx_hash).to.equal(res.body.txHash)
    expect(await f.balanceOf(payer)).to.equal(before - 7_000n)
    expect(await accountNonce(f, 'latest')).to.equal(minedBefore + 1n)
    // The caller's retry after its 202 gets the payment's one success; any later settle is refused.
    expect((await f.post('settle', body)).body).to.include({ success: true, txHash: res.body.txHash })
    expect((await f.post('settle', body)).body).to.include({
      errorCode: 'authorization_already_used',
      txHash: res.body.txHash,
    })
  })
})
