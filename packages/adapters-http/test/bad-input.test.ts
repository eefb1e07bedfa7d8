import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { startTestApp, type TestApp } from './support/test-app.js'

/** Bad input never reaches the use cases: these count every call that does. */
let reachedDomain = 0
const unreachable = () => {
  reachedDomain++
  return TE.left({ _tag: 'JournalUnavailable' as const, reason: 'must not be called' })
}

describe("HTTP: bad input is answered 4xx in the endpoint's shape, never reaching the domain", () => {
  let app: TestApp
  let base: string
  before(async () => {
    app = await startTestApp({ verifyPayment: unreachable, settlePayment: unreachable, lookUpSettlement: unreachable })
    base = app.base
  })
  after(() => app.close())
  afterEach(() => expect(reachedDomain).to.equal(0))

  /** Error bodies carry the request id too; the tests compare the rest. */
  const withoutId = async (res: Response) => {
    const { requestId, ...rest } = (await res.json()) as Record<string, unknown>
    expect(requestId).to.equal(res.headers.get('x-request-id'))
    return rest
  }

  const post = (path: string, body: string, contentType = 'application/json') =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body })

  it('invalid JSON → 400 invalid_payload (verify shape)', async () => {
    const res = await post('/api/facilitator/verify', '{"paymentPayload":')
    expect(res.status).to.equal(400)
    const body = (await res.json()) as { invalidReason: string }
    expect(body).to.include({ valid: false, reasonCode: 'invalid_payload' })
    expect(body.invalidReason).to.match(/^body: not valid JSON/)
  })

  it('invalid JSON → 400 invalid_payload (settle shape)', async () => {
    const res = await post('/api/facilitator/settle', 'not json')
    expect(res.status).to.equal(400)
    expect(await res.json()).to.include({ success: false, errorCode: 'invalid_payload' })
  })

  it('wrong content type → 415', async () => {
    const res = await post('/api/facilitator/verify', 'a=b', 'application/x-www-form-urlencoded')
    expect(res.status).to.equal(415)
    expect(await withoutId(res)).to.deep.equal({
      valid: false,
      invalidReason: 'body: Content-Type must be application/json',
      reasonCode: 'unsupported_media_type',
    })
  })

  it('missing fields → 400 naming the field', async () => {
    const res = await post('/api/facilitator/settle', JSON.stringify({ paymentPayload: {} }))
    expect(res.status).to.equal(400)
    expect(await withoutId(res)).to.deep.equal({
      success: false,
      error: 'paymentPayload.x402Version: is required',
      errorCode: 'invalid_payload',
    })
  })

  it('a JSON value that is not an object → 400', async () => {
    const res = await post('/api/facilitator/verify', '42')
    expect(res.status).to.equal(400)
    expect(await res.json()).to.include({ invalidReason: 'body: expected a JSON object' })
  })

  it('oversize body → 413', async () => {
    const res = await post('/api/facilitator/verify', JSON.stringify({ pad: 'x'.repeat(70 * 1024) }))
    expect(res.status).to.equal(413)
    expect(await res.json()).to.include({ valid: false, reasonCode: 'payload_too_large' })
  })

  it('unknown path → 404 JSON', async () => {
    const res = await fetch(`${base}/api/facilitator/refund`)
    expect(res.status).to.equal(404)
    expect(await withoutId(res)).to.deep.equal({
      error: 'no such endpoint: GET /api/facilitator/refund',
      errorCode: 'not_found',
    })
  })

  it('wrong method → 405 with Allow, also for methods the router does not know (never 501)', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PROPFIND']) {
      const res = await fetch(`${base}/api/facilitator/verify`, { method })
      expect(res.status, method).to.equal(405)
      expect(res.headers.get('allow')).to.equal('POST')
      expect(await res.json()).to.include({ errorCode: 'method_not_allowed' })
    }
    const res = await fetch(`${base}/api/facilitator/supported`, { method: 'POST' })
    expect(res.status).to.equal(405)
    expect(res.headers.get('allow')).to.equal('HEAD, GET')
  })

  it('malformed settlement lookups → 400 invalid_query', async () => {
    for (const path of [
      '/settlements/0x1234',
      '/settlements?payer=alice&nonce=1',
      '/settlements?payer=0x' + 'ab'.repeat(20),
    ]) {
      const res = await fetch(`${base}/api/facilitator${path}`)
      expect(res.status, path).to.equal(400)
      expect(await res.json()).to.include({ errorCode: 'invalid_query' })
    }
  })

  it('a malformed x402 v2 body → 400 in the v2 shape', async () => {
    const res = await post(
      '/api/facilitator/verify',
      JSON.stringify({ x402Version: 2, paymentPayload: { x402Version: 2, accepted: {} } }),
    )
    expect(res.status).to.equal(400)
    expect(await withoutId(res)).to.deep.equal({
      isValid: false,
      invalidReason: 'invalid_payload',
      invalidMessage: 'paymentPayload.accepted.scheme: is required',
    })
  })

  it('a bad Idempotency-Key → 400', async () => {
    const res = await fetch(`${base}/api/facilitator/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'x'.repeat(300) },
      body: JSON.stringify({ paymentPayload: {} }),
    })
    expect(res.status).to.equal(400)
  })

  it('every answer carries a request id; a sane incoming one is kept', async () => {
    const res = await fetch(`${base}/api/facilitator/nothing`, { headers: { 'x-request-id': 'trace-123' } })
    expect(res.headers.get('x-request-id')).to.equal('trace-123')
    const other = await fetch(`${base}/api/facilitator/nothing`, { headers: { 'x-request-id': 'bad id with spaces' } })
    expect(other.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/)
  })
})
