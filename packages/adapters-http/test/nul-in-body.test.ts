import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { postJson, specBody, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

let reachedDomain = 0
const unreachable = () => {
  reachedDomain++
  return TE.left({ _tag: 'JournalUnavailable' as const, reason: 'must not be called' })
}

/**
 * Postgres refuses U+0000 in text and jsonb: a body holding one would be a 503 on every retry (docs/ARCHITECTURE.md §3
 * rule 0).
 */
describe('HTTP: a NUL character anywhere in the body is a 400 naming the field, in both dialects', () => {
  let app: TestApp
  before(async () => {
    app = await startTestApp({ verifyPayment: unreachable, settlePayment: unreachable, lookUpSettlement: unreachable })
  })
  after(() => app.close())
  afterEach(() => expect(reachedDomain).to.equal(0))

  const answer = async (endpoint: 'verify' | 'settle', body: unknown) => {
    const res = await postJson(`${app.base}/api/facilitator/${endpoint}`, body)
    const { requestId: _id, ...rest } = (await res.json()) as Record<string, unknown>
    return { status: res.status, body: rest }
  }

  it('spec dialect, a requirement string → invalid_payment_requirements', async () => {
    const body = specBody()
    body.paymentRequirements.extra.name = 'USD\u0000Coin'
    expect(await answer('settle', body)).to.deep.equal({
      status: 400,
      body: {
        success: false,
        errorCode: 'invalid_payment_requirements',
        error: 'paymentRequirements.extra.name: must not contain the NUL character (\\u0000)',
      },
    })
  })

  it('spec dialect, a field the rules judge (network) → 400, not a rule refusal', async () => {
    const body = specBody()
    body.paymentRequirements.network = 'eip155:31337\u0000'
    expect(await answer('verify', body)).to.deep.equal({
      status: 400,
      body: {
        valid: false,
        reasonCode: 'invalid_payment_requirements',
        invalidReason: 'paymentRequirements.network: must not contain the NUL character (\\u0000)',
      },
    })
  })

  it('spec dialect, a key name under the payload → invalid_payload', async () => {
    const body = { ...specBody(), paymentPayload: { ...specBody().paymentPayload, 'no\u0000te': 'x' } }
    expect(await answer('verify', body)).to.deep.equal({
      status: 400,
      body: {
        valid: false,
        reasonCode: 'invalid_payload',
        invalidReason: 'paymentPayload.no\\u0000te: must not contain the NUL character (\\u0000)',
      },
    })
  })

  it('x402 v2 dialect, settle and verify, in its own shapes', async () => {
    const body = v2Body()
    body.paymentRequirements.extra.only = '\u0000'
    expect(await answer('settle', body)).to.deep.equal({
      status: 400,
      body: {
        success: false,
        errorReason: 'invalid_payment_requirements',
        errorMessage: 'paymentRequirements.extra.only: must not contain the NUL character (\\u0000)',
        transaction: '',
        network: 'eip155:31337',
      },
    })
    const inArray = { ...v2Body(), extensions: [{ label: 'a\u0000' }] }
    expect(await answer('verify', inArray)).to.deep.equal({
      status: 400,
      body: {
        isValid: false,
        invalidReason: 'invalid_payload',
        invalidMessage: 'extensions.0.label: must not contain the NUL character (\\u0000)',
      },
    })
  })

  it('a deeply nested body is judged without overflowing the stack', async () => {
    const depth = 20_000
    const text = `${JSON.stringify(specBody()).slice(0, -1)},"junk":${'['.repeat(depth)}"deep\\u0000"${']'.repeat(depth)}}`
    const res = await fetch(`${app.base}/api/facilitator/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    })
    expect(res.status).to.equal(400)
    expect(await res.json()).to.include({ reasonCode: 'invalid_payload' })
  })
})
