import { expect } from 'chai'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS, isSettled, receiptOf } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { freshAddress, paymentFromPayer, transfersTo } from './support/payments-on-chain.js'
import { startRefusingRpcProxy, type RefusingRpcProxy } from './support/refusing-rpc-proxy.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/** A refusal no balance check foresees: the node will never take this transaction. */
const REFUSAL = 'transaction rejected by the node under test'

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
  let proxy: RefusingRpcProxy
  before(async () => {
    proxy = await startRefusingRpcProxy()
    f = await startTestFacilitator(FAULT_TIMINGS, {}, undefined, (chain) => {
      proxy.target = chain.rpcUrl
      return { RPC_URL: proxy.url }
    })
  })
  after(async () => {
    await f?.stop()
    await proxy?.close()
  })
  afterEach(async () => {
    await allowReleases(f)
    proxy.refuseBroadcasts(undefined)
    await chainBackToNormal(f.chain)
  })

  it('the row is released, then 503 naming the refusal; the same settle later goes through', async () => {
    const payee = freshAddress()
    const body = await paymentFromPayer(f, 0, payee, 1_000n)
    proxy.refuseBroadcasts(REFUSAL)
    const refused = await f.post('settle', body)
    expect(refused.status).to.equal(503)
    expect(String(refused.body.error)).to.include(REFUSAL)
    const row = (await f.rows()).find((r) => r.payee === payee)
    expect(row?.state).to.equal('released')
    proxy.refuseBroadcasts(undefined)
    expect((await f.post('settle', body)).body).to.include({ success: true })
    expect(await transfersTo(f, payee)).to.equal(1)
  })

  it('the release fails after the refusal: 202 with the transaction (never 503 "nothing happened"), its nonce kept; recovery sends it once the node takes it', async () => {
    const payee = freshAddress()
    const body = await paymentFromPayer(f, 1, payee, 1_000n)
    await failReleases(f)
    proxy.refuseBroadcasts(REFUSAL)
    const answer = await f.post('settle', body)
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202)
    expect(answer.body).to.include({ errorCode: 'settlement_pending' })
    const row = (await f.rows()).find((r) => r.payee === payee)
    expect(row).to.include({ state: 'submitted', tx_hash: answer.body.txHash })
    await allowReleases(f)
    proxy.refuseBroadcasts(undefined)
    await waitFor('the row settled by recovery', async () =>
      (await f.rows()).some((r) => r.payee === payee && isSettled(r.state)) ? true : undefined,
    )
    expect(await transfersTo(f, payee)).to.equal(1)
    // The caller was told 202: its retry gets the payment's one success, a third settle is refused.
    expect((await f.post('settle', body)).body).to.include({ success: true, txHash: answer.body.txHash })
    expect((await f.post('settle', body)).body).to.include({ success: false, errorCode: 'authorization_already_used' })
  })

  it('the node refuses the stored transaction again when recovery sends it: the row is released and its nonce filled, the key not wedged', async () => {
    const payee = freshAddress()
    const body = await paymentFromPayer(f, 2, payee, 1_000n)
    await failReleases(f)
    proxy.refuseBroadcasts(REFUSAL)
    const answer = await f.post('settle', body)
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202)
    const row = (await f.rows()).find((r) => r.payee === payee)!
    const [stored] = (await f.db.knex('settlement_attempts').where({ settlement_id: row.id })) as Array<{
      raw: string
      account_nonce: string
    }>
    // Only that transaction stays refused (its content, say): the node takes everything else.
    await allowReleases(f)
    proxy.refuseBroadcasts(REFUSAL, (raw) => raw === stored!.raw.toLowerCase())
    await waitFor('the row released by recovery', async () =>
      (await f.rows()).find((r) => r.id === row.id)?.state === 'released' ? true : undefined,
    )
    // The caller's retry settles it anew, at a later nonce: the refused one is filled (by the next recovery pass), so
    // the new transaction does not wait behind it for ever.
    const retried = await f.post('settle', body)
    expect([200, 202], JSON.stringify(retried.body)).to.include(retried.status)
    await waitFor('the payment settled', async () =>
      (await f.rows()).some((r) => r.payee === payee && isSettled(r.state)) ? true : undefined,
    )
    const minedNonce = BigInt(
      (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, 'latest'])) as string,
    )
    expect(minedNonce > BigInt(stored!.account_nonce)).to.equal(true)
    expect(await transfersTo(f, payee)).to.equal(1)
  })
})

describe('the node refuses a transaction and its release does not answer: its nonce is kept (docs/ARCHITECTURE.md §5.3; real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let proxy: RefusingRpcProxy
  before(async () => {
    proxy = await startRefusingRpcProxy()
    // No recovery pass after start-up: nothing but the nonce allocator stands between the refused nonce and the next
    // settle.
    f = await startTestFacilitator({ ...FAULT_TIMINGS, RECOVERY_INTERVAL_MS: '600000' }, {}, undefined, (chain) => {
      proxy.target = chain.rpcUrl
      return { RPC_URL: proxy.url }
    })
  })
  after(async () => {
    await f?.stop()
    await proxy?.close()
  })

  it('the next payment is not given the nonce its row still names; the stored attempt, sent again, settles at it', async () => {
    const refusedPayee = freshAddress()
    await failReleases(f)
    proxy.refuseBroadcasts(REFUSAL)
    const answer = await f.post('settle', await paymentFromPayer(f, 0, refusedPayee, 1_000n))
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202)
    await allowReleases(f)
    proxy.refuseBroadcasts(undefined)
    const [kept] = await f.db.knex('settlement_attempts').where({ tx_hash: answer.body.txHash })
    expect(kept).to.not.equal(undefined)

    const nextPayee = freshAddress()
    const next = await f.post('settle', await paymentFromPayer(f, 1, nextPayee, 1_000n))
    expect(next.status).to.be.oneOf([200, 202])
    const nextRow = (await f.rows()).find((r) => r.payee === nextPayee)!
    const nextAttempts = await f.db.knex('settlement_attempts').where({ settlement_id: nextRow.id })
    expect(nextAttempts.map((a) => String(a.account_nonce))).to.not.include(String(kept.account_nonce))

    // What recovery does with the row's attempt: sent again as stored, it is mined at its nonce; both payees paid once.
    await anvilRpc(f.chain.rpcUrl, 'eth_sendRawTransaction', [kept.raw])
    await waitFor('the kept attempt mined', async () =>
      (await receiptOf(f.chain.rpcUrl, answer.body.txHash as string)) ? true : undefined,
    )
    await waitFor('the next payment mined', async () => ((await transfersTo(f, nextPayee)) === 1 ? true : undefined))
    expect(await transfersTo(f, refusedPayee)).to.equal(1)
  })
})
