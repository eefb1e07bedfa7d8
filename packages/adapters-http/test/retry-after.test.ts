import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { postJson, specBody, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

describe("HTTP: a 503 service_unavailable says when to retry; the readiness probe's 503 does not", () => {
  let app: TestApp
  before(async () => {
    app = await startTestApp({
      retryAfterSeconds: 7,
      verifyPayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'node down' }),
      settlePayment: () => TE.left({ _tag: 'JournalUnavailable', reason: 'database down' }),
      lookUpSettlement: () => TE.left({ _tag: 'JournalUnavailable', reason: 'database down' }),
      readiness: async () => ({
        checks: { chain: { ok: false, detail: 'node down' }, database: { ok: true, detail: 'ok' } },
        ageSeconds: 0.5,
      }),
    })
  })
  after(() => app.close())

  it('verify and settle, both dialects: 503 with the configured Retry-After', async () => {
    for (const endpoint of ['verify', 'settle']) {
      for (const body of [specBody(), v2Body()]) {
        const res = await postJson(`${app.base}/api/facilitator/${endpoint}`, body)
        expect(res.status, endpoint).to.equal(503)
        expect(res.headers.get('retry-after'), endpoint).to.equal('7')
      }
    }
  })

  it('settlement lookups: 503 service_unavailable with the configured Retry-After', async () => {
    const res = await fetch(`${app.base}/api/facilitator/settlements/0x${'ab'.repeat(32)}`)
    expect(res.status).to.equal(503)
    expect(res.headers.get('retry-after')).to.equal('7')
    expect(await res.json()).to.include({ errorCode: 'service_unavailable' })
  })

  it('/readyz not ready: 503 naming the failing parts and the age of its checks, no Retry-After', async () => {
    const res = await fetch(`${app.base}/readyz`)
    expect(res.status).to.equal(503)
    expect(res.headers.get('retry-after')).to.equal(null)
    expect(res.headers.get('cache-control')).to.equal('no-store')
    expect(await res.json()).to.deep.include({ status: 'not_ready', failing: ['chain'], ageSeconds: 0.5 })
  })
})
