import { expect } from 'chai'
import { asX402V2 } from './support/x402-v2-body.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

describe('end to end: bodies Postgres cannot store, and idempotent replays (docs/ARCHITECTURE.md §4, §5.2)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ TRUST_PROXY: 'true' })
  })
  after(() => f?.stop())

  it('issue 18 item 9: a NUL inside the requirements is a 400 naming the field in both dialects, and the payment still settles once fixed', async () => {
    const body = await f.payment()
    const spec = { ...body, paymentRequirements: { ...body.paymentRequirements, extra: { note: 'order\u00001' } } }
    const specAnswer = await f.post('settle', spec)
    expect(specAnswer.status).to.equal(400)
    expect(specAnswer.body).to.include({
      success: false,
      errorCode: 'invalid_payment_requirements',
      error: 'paymentRequirements.extra.note: must not contain the NUL character (\\u0000)',
    })
    const v2 = asX402V2(body)
    const v2Answer = await f.post('settle', {
      ...v2,
      paymentRequirements: { ...v2.paymentRequirements, extra: { name: 'Demo\u0000USD' } },
    })
    expect(v2Answer.status).to.equal(400)
    expect(v2Answer.body).to.include({ success: false, errorReason: 'invalid_payment_requirements', transaction: '' })
    expect(await f.rows()).to.have.length(0)
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true })
  })

  it('issue 18 item 11: a v2 replay says replayed at the top of the body and in Idempotency-Replayed; so does the spec dialect', async () => {
    const body = asX402V2(await f.payment({ payer: 1 }))
    const first = await f.post('settle', body, { 'idempotency-key': 'order-v2' })
    expect(first.body).to.include({ success: true })
    expect(first.headers.get('idempotency-replayed')).to.equal(null)
    const replay = await f.post('settle', body, { 'idempotency-key': 'order-v2' })
    expect(replay.status).to.equal(200)
    expect(replay.body).to.include({ success: true, replayed: true, transaction: first.body.transaction })
    expect(replay.headers.get('idempotency-replayed')).to.equal('true')

    const spec = await f.payment({ payer: 1 })
    await f.post('settle', spec, { 'idempotency-key': 'order-spec' })
    const specReplay = await f.post('settle', spec, { 'idempotency-key': 'order-spec' })
    expect(specReplay.body).to.include({ success: true, replayed: true })
    expect(specReplay.headers.get('idempotency-replayed')).to.equal('true')
  })

  it('issue 18 item 11: without API keys, two clients using one Idempotency-Key each get their own settlement', async () => {
    const [mine, theirs] = [await f.payment({ payer: 2 }), await f.payment({ payer: 2 })]
    const a = await f.post('settle', mine, { 'idempotency-key': 'order-1', 'x-forwarded-for': '203.0.113.1' })
    const b = await f.post('settle', theirs, { 'idempotency-key': 'order-1', 'x-forwarded-for': '203.0.113.2' })
    expect(a.body).to.include({ success: true })
    expect(b.status).to.equal(200)
    expect(b.body).to.include({ success: true })
    expect(b.body.txHash).to.not.equal(a.body.txHash)
    const again = await f.post('settle', theirs, { 'idempotency-key': 'order-1', 'x-forwarded-for': '203.0.113.2' })
    expect(again.body).to.include({ success: true, replayed: true, txHash: b.body.txHash })
  })
})
