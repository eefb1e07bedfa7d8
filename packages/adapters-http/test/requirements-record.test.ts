import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { SettleOptions } from '@x402-facilitator/domain'
import { PAYER, postJson, specBody, TX_HASH, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

const unavailable = () => TE.left({ _tag: 'JournalUnavailable' as const, reason: 'not under test' })

describe('HTTP: settle hands the use case the requirements as received (the journal row keeps them for audit)', () => {
  const received: SettleOptions[] = []
  let app: TestApp
  before(async () => {
    app = await startTestApp({
      apiKeys: ['key-one', 'key-two'],
      verifyPayment: unavailable,
      lookUpSettlement: unavailable,
      settlePayment: (_request, options) => {
        received.push(options)
        return TE.right({ _tag: 'Settled', payer: PAYER, txHash: TX_HASH, blockNumber: 1n, replayed: false })
      },
    })
  })
  after(() => app.close())
  beforeEach(() => {
    received.length = 0
  })

  const settle = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await postJson(`${app.base}/api/facilitator/settle`, body, {
      authorization: 'Bearer key-one',
      ...headers,
    })
    expect(res.status).to.equal(200)
    expect(received).to.have.length(1)
    return received[0]!
  }

  it('spec dialect: paymentRequirements as sent, spellings and unknown fields kept', async () => {
    const body = specBody()
    expect(JSON.stringify((await settle(body)).requirementsRecord)).to.equal(JSON.stringify(body.paymentRequirements))
  })

  it('x402 v2: the top-level paymentRequirements, not the copy under paymentPayload.accepted', async () => {
    const body = v2Body()
    expect(JSON.stringify((await settle(body)).requirementsRecord)).to.equal(JSON.stringify(body.paymentRequirements))
  })

  it('without an Idempotency-Key: no key, but the caller (the API key) and the request hash, and a fresh answer id each time', async () => {
    const first = await settle(specBody())
    received.length = 0
    const second = await settle(specBody())
    expect(first.idempotencyKey).to.equal(undefined)
    expect(first.caller).to.match(/^[0-9a-f]{12}$/)
    expect(second.caller).to.equal(first.caller)
    expect(first.requestHash).to.match(/^[0-9a-f]{64}$/)
    expect(second.requestHash).to.equal(first.requestHash)
    expect(first.answerId).to.be.a('string').and.not.equal(second.answerId)
  })

  it('an Idempotency-Key is scoped to the API key; the request hash ignores the JSON spelling', async () => {
    const first = await settle(specBody(), { 'idempotency-key': 'order-1' })
    received.length = 0
    const respelled = specBody()
    respelled.paymentRequirements.amount = '1000000'
    const second = await settle(respelled, { 'idempotency-key': 'order-1', authorization: 'Bearer key-two' })
    expect(first.idempotencyKey).to.equal(`${first.caller}:order-1`)
    expect(first.idempotencyKey).to.match(/^[0-9a-f]{12}:order-1$/)
    expect(second.idempotencyKey).to.match(/^[0-9a-f]{12}:order-1$/)
    expect(second.idempotencyKey).to.not.equal(first.idempotencyKey)
    expect(first.requestHash).to.match(/^[0-9a-f]{64}$/)
    expect(second.requestHash).to.equal(first.requestHash)
  })
})
