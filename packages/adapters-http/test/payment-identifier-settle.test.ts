import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { SettleOptions } from '@x402-facilitator/domain'
import { valid } from './support/answer-rows.js'
import { PAYER, postJson, TX_HASH, v2Body } from './support/bodies.js'
import { permit2Body, withPaymentId } from './support/payment-identifier-bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

const ID = 'pay_0123456789abcdef0123456789abcdef'

/** docs/ARCHITECTURE.md §5.2: a `payment-identifier` id is the settle's Idempotency-Key, on settle only. */
describe('HTTP: the payment-identifier id is that caller’s Idempotency-Key on settle', () => {
  const settles: SettleOptions[] = []
  let verifies = 0
  let app: TestApp
  before(async () => {
    app = await startTestApp({
      // Its Permit2 case is an upto payment: settled without API keys (dev mode's setting).
      uptoWithoutKeys: true,
      verifyPayment: () => {
        verifies++
        return TE.right(valid)
      },
      lookUpSettlement: () => TE.left({ _tag: 'JournalUnavailable', reason: 'not under test' }),
      settlePayment: (_request, options) => {
        settles.push(options)
        return TE.right({ _tag: 'Settled', payer: PAYER, txHash: TX_HASH, blockNumber: 7n, replayed: false })
      },
    })
  })
  after(() => app.close())
  beforeEach(() => {
    settles.length = 0
    verifies = 0
  })

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    postJson(`${app.base}/api/facilitator/${path}`, body, headers)

  for (const [kind, body] of [
    ['EIP-3009', v2Body],
    ['Permit2', permit2Body],
  ] as const) {
    it(`${kind}: the id settles as the same Idempotency-Key header would, with the same request digest`, async () => {
      expect((await post('settle', withPaymentId(body(), { required: false, id: ID }))).status).to.equal(200)
      expect((await post('settle', body(), { 'idempotency-key': ID })).status).to.equal(200)
      expect((await post('settle', withPaymentId(body(), { id: ID }), { 'idempotency-key': ID })).status).to.equal(200)
      const [byId, byHeader, byBoth] = settles
      expect(byId!.idempotencyKey).to.match(new RegExp(`^ip:.+:${ID}$`))
      for (const other of [byHeader, byBoth]) {
        expect(other).to.deep.include({ idempotencyKey: byId!.idempotencyKey, requestHash: byId!.requestHash })
        // Each request answers for itself: a duplicate in flight never shares the original's success.
        expect(other!.answerId).to.not.equal(byId!.answerId)
      }
    })
  }

  it('an id and an Idempotency-Key header that differ → 400 idempotency_key_mismatch, nothing settled', async () => {
    const res = await post('settle', withPaymentId(v2Body(), { id: ID }), { 'idempotency-key': 'order-1' })
    expect(res.status).to.equal(400)
    expect(await res.json()).to.deep.include({
      success: false,
      errorReason: 'idempotency_key_mismatch',
      errorMessage:
        'Idempotency-Key: differs from paymentPayload.extensions.payment-identifier.info.id; send one, or both equal',
    })
    expect(settles).to.have.length(0)
  })

  it('a malformed id or a required one missing → 400 naming the field, at settle and at verify', async () => {
    for (const [info, code] of [
      [{ id: 'too-short' }, 'invalid_payment_identifier'],
      [{ required: true }, 'payment_identifier_required'],
    ] as const) {
      const settle = await post('settle', withPaymentId(v2Body(), info))
      expect(settle.status).to.equal(400)
      expect(await settle.json()).to.deep.include({ success: false, errorReason: code })
      const verify = await post('verify', withPaymentId(v2Body(), info))
      expect(verify.status).to.equal(400)
      expect(await verify.json()).to.deep.include({ isValid: false, invalidReason: code })
    }
    expect(settles).to.have.length(0)
    expect(verifies).to.equal(0)
  })

  it('verify does not use the id: it verifies as without it', async () => {
    const res = await post('verify', withPaymentId(v2Body(), { id: ID }))
    expect(await res.json()).to.deep.include({ isValid: true, payer: PAYER })
    expect(verifies).to.equal(1)
  })

  it('without an id nor a header, every settle is its own answer (no key)', async () => {
    await post('settle', v2Body())
    expect(settles[0]).to.not.have.property('idempotencyKey')
  })
})
