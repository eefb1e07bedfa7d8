import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { SettleOptions } from '@x402-facilitator/domain'
import { PAYER, postJson, specBody, TX_HASH, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

const unavailable = () => TE.left({ _tag: 'JournalUnavailable' as const, reason: 'not under test' })

/**
 * docs/ARCHITECTURE.md §4 and §5.2: a replay says so where any client looks; without API keys, keys are per client
 * address.
 */
describe('HTTP: idempotent replays are visible and keys are scoped per client', () => {
  const received: SettleOptions[] = []
  let replayed = true
  let app: TestApp
  before(async () => {
    app = await startTestApp({
      trustedProxies: 1,
      verifyPayment: unavailable,
      lookUpSettlement: unavailable,
      settlePayment: (_request, options) => {
        received.push(options)
        return TE.right({ _tag: 'Settled', payer: PAYER, txHash: TX_HASH, blockNumber: 7n, replayed })
      },
    })
  })
  after(() => app.close())
  beforeEach(() => {
    received.length = 0
    replayed = true
  })

  const settle = (body: unknown, headers: Record<string, string> = {}) =>
    postJson(`${app.base}/api/facilitator/settle`, body, headers)

  it('spec dialect: replayed:true and Idempotency-Replayed: true', async () => {
    const res = await settle(specBody(), { 'idempotency-key': 'order-1' })
    expect(res.headers.get('idempotency-replayed')).to.equal('true')
    expect(await res.json()).to.include({ success: true, replayed: true })
  })

  it('x402 v2 dialect: replayed at the top of the body (and under extra), and the header', async () => {
    const res = await settle(v2Body(), { 'idempotency-key': 'order-1' })
    expect(res.headers.get('idempotency-replayed')).to.equal('true')
    expect(await res.json()).to.deep.include({
      success: true,
      replayed: true,
      extra: { blockNumber: 7, replayed: true },
    })
  })

  it('a first settle carries neither the header nor the flag', async () => {
    replayed = false
    const res = await settle(v2Body())
    expect(res.headers.get('idempotency-replayed')).to.equal(null)
    expect(await res.json()).to.not.have.property('replayed')
  })

  it('without API keys, one Idempotency-Key from two client addresses is two keys; from one address, one', async () => {
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.1'])
      await settle(specBody(), { 'idempotency-key': 'order-1', 'x-forwarded-for': client })
    const [a, b, again] = received.map((options) => options.idempotencyKey)
    expect(a).to.equal('ip:203.0.113.1:order-1')
    expect(b).to.equal('ip:203.0.113.2:order-1')
    expect(again).to.equal(a)
  })
})
