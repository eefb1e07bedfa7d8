import { expect } from 'chai'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

describe('settlement lookup and idempotent retries (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator()
  })
  after(() => f?.stop())
  const get = async (path: string) => {
    const response = await fetch(`${f.base}${path}`)
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  /** How often the journal was asked for a row by its authorization: a retry waiting on the row asks every 100 ms. */
  const rowReadsByAuthorization = async () => {
    const metrics = await (await fetch(f.base.replace(/\/api\/facilitator$/, '/metrics'))).text()
    const counts = metrics.matchAll(
      /^facilitator_journal_call_duration_seconds_count\{network="[^"]+",call="findByKey",outcome="\w+"\} (\d+)$/gm,
    )
    return [...counts].reduce((sum, [, count]) => sum + Number(count), 0)
  }

  it('a settlement is found by its transaction hash and by payer + nonce; unknown ones are 404', async () => {
    const body = await f.payment()
    const settled = await f.post('settle', body)
    const { from, nonce } = body.paymentPayload.payload.authorization
    // CONFIRMATIONS=0: final at the watcher's next head; the lookup then stays as it is.
    const byHash = await waitFor('the settlement final', async () => {
      const found = await get(`/settlements/${settled.body.txHash as string}`)
      return found.body.state === 'final' ? found : undefined
    })
    expect(byHash.status).to.equal(200)
    expect(byHash.body.confirmations).to.be.a('number').at.least(0)
    expect(byHash.body).to.include({
      payer: from,
      payee: body.paymentRequirements.payTo,
      value: '1000000',
      asset: f.chain.tokenAddress,
      network: f.network,
      txHash: settled.body.txHash,
      blockNumber: settled.body.blockNumber,
    })
    expect(byHash.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT/)
    const byAuthorization = await get(`/settlements?payer=${from}&nonce=${nonce}`)
    expect(byAuthorization.body).to.deep.equal(byHash.body)
    // The network named by its spec name or its CAIP-2 id; one not served is named back with those that are.
    const caip2 = `eip155:${f.chain.chainId}`
    for (const network of [f.network, caip2])
      expect((await get(`/settlements?payer=${from}&nonce=${nonce}&network=${network}`)).body).to.deep.equal(
        byHash.body,
      )
    expect((await get(`/settlements?payer=${from}&nonce=${nonce}&network=eip155:8453`)).body).to.include({
      errorCode: 'invalid_query',
      error: `network: expected a network this facilitator serves: ${[...new Set([f.network, caip2])].join(' or ')}`,
    })
    expect((await get(`/settlements/0x${'00'.repeat(32)}`)).status).to.equal(404)
    expect((await get(`/settlements?payer=${from}&nonce=12345`)).body).to.include({ errorCode: 'settlement_not_found' })
  })

  it('the same Idempotency-Key and body → the stored outcome, marked as a replay; another body → 409', async () => {
    const body = await f.payment({ payer: 1 })
    const first = await f.post('settle', body, { 'idempotency-key': 'order-42' })
    expect(first.body).to.include({ success: true })
    const retry = await f.post('settle', body, { 'idempotency-key': 'order-42' })
    expect(retry.status).to.equal(200)
    expect(retry.body).to.deep.equal({ ...first.body, replayed: true })
    const other = await f.post('settle', await f.payment({ payer: 1 }), { 'idempotency-key': 'order-42' })
    expect(other.status).to.equal(409)
    expect(other.body).to.include({ success: false, errorCode: 'idempotency_key_reused' })
    // Without the key, the same payment replayed is refused: never a second success for one transfer.
    expect((await f.post('settle', body)).body).to.include({
      success: false,
      errorCode: 'authorization_already_used',
      txHash: first.body.txHash,
    })
  })

  it('a duplicate arriving while the first settle is in flight waits for that one transaction and is refused naming it; once answered, a retry replays it', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    try {
      const payer = f.chain.payers[2]!.address
      const before = await f.balanceOf(payer)
      const body = await f.payment({ payer: 2 })
      const first = f.post('settle', body, { 'idempotency-key': 'order-43' })
      await waitFor('the first settle broadcast', async () =>
        (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
      )
      const readsBefore = await rowReadsByAuthorization()
      const retry = f.post('settle', body, { 'idempotency-key': 'order-43' })
      await waitFor('the retry waiting on that row', async () =>
        (await rowReadsByAuthorization()) > readsBefore ? true : undefined,
      )
      await anvilRpc(f.chain.rpcUrl, 'evm_mine')
      const [a, b] = await Promise.all([first, retry])
      // Under one key, the original and a duplicate in flight beside it are one payment: one success (whichever marks
      // it first), the other refused naming that transaction.
      const [won, lost] = a.body.success === true ? [a, b] : [b, a]
      expect(won.body).to.include({ success: true })
      expect(lost.body).to.include({ success: false, errorCode: 'authorization_already_used' })
      expect(JSON.stringify(lost.body)).to.include(String(won.body.txHash))
      const later = await f.post('settle', body, { 'idempotency-key': 'order-43' })
      expect(later.body).to.include({ success: true, txHash: won.body.txHash, replayed: true })
      expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
    } finally {
      await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    }
  })
})
