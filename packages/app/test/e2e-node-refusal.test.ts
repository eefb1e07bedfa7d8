import { expect } from 'chai'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS, isSettled, waitFor } from './support/chain-control.js'
import { freshAddress, paymentFromPayer, transfersTo } from './support/payments-on-chain.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/** Makes every release of a row fail in Postgres itself, as a journal that stops answering at that moment would. */
const failReleases = async (f: TestFacilitator) => {
  await f.db.knex.raw(`create or replace function test_refuse_release() returns trigger language plpgsql as $$
    begin raise exception 'the test refuses every release'; end $$`)
  await f.db.knex.raw(`create trigger test_refuse_release before update on settlements for each row
    when (new.state = 'released') execute function test_refuse_release()`)
}
const allowReleases = (f: TestFacilitator) => f.db.knex.raw('drop trigger if exists test_refuse_release on settlements')

describe('the node refuses a transaction (docs/ARCHITECTURE.md §5.3; real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let gas: string
  before(async () => {
    f = await startTestFacilitator(FAULT_TIMINGS)
    gas = (await anvilRpc(f.chain.rpcUrl, 'eth_getBalance', [f.chain.facilitator.address, 'latest'])) as string
  })
  after(() => f?.stop())
  afterEach(async () => {
    await allowReleases(f)
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [f.chain.facilitator.address, gas])
    await chainBackToNormal(f.chain)
  })

  it('out of gas money: the row is released, then 503; the same settle later goes through', async () => {
    const payee = freshAddress()
    const body = await paymentFromPayer(f, 0, payee, 1_000n)
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [f.chain.facilitator.address, '0x0'])
    const refused = await f.post('settle', body)
    expect(refused.status).to.equal(503)
    const row = (await f.rows()).find((r) => r.payee === payee)
    expect(row?.state).to.equal('released')
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [f.chain.facilitator.address, gas])
    expect((await f.post('settle', body)).body).to.include({ success: true })
    expect(await transfersTo(f, payee)).to.equal(1)
  })

  it('the release fails after the refusal: 202 with the transaction (never 503 "nothing happened"), its nonce kept; recovery sends it once the key has gas', async () => {
    const payee = freshAddress()
    const body = await paymentFromPayer(f, 1, payee, 1_000n)
    await failReleases(f)
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [f.chain.facilitator.address, '0x0'])
    const answer = await f.post('settle', body)
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202)
    expect(answer.body).to.include({ errorCode: 'settlement_pending' })
    const row = (await f.rows()).find((r) => r.payee === payee)
    expect(row).to.include({ state: 'submitted', tx_hash: answer.body.txHash })
    await allowReleases(f)
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [f.chain.facilitator.address, gas])
    await waitFor('the row settled by recovery', async () => ((await f.rows()).some((r) => r.payee === payee && isSettled(r.state)) ? true : undefined))
    expect(await transfersTo(f, payee)).to.equal(1)
    const again = await f.post('settle', body)
    expect(again.body).to.include({ success: false, errorCode: 'authorization_already_used' })
  })
})
