import { expect } from 'chai'
import { makeOpenApiValidator } from './support/openapi-validator.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

const PATH = '/api/facilitator/operator/deliveries'
const SECRET = 'whsec-openapi-0123456789abcdef'
const CALLER_KEY = 'caller-key-0123456789abcdef'
const OPERATOR_TOKEN = 'operator-token-0123456789abcdef-0123'
const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` }
type Delivery = Record<string, unknown>

/** The operator's look-up of webhook deliveries answers as the OpenAPI document says (real app, anvil, Postgres). */
describe('real answers of the operator route match the OpenAPI document', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let delivered: WebhookReceiver
  let failing: WebhookReceiver
  const openapi = makeOpenApiValidator()
  before(async () => {
    delivered = await startWebhookReceiver()
    failing = await startWebhookReceiver()
    failing.answerAlways(503)
    f = await startTestFacilitator({
      WEBHOOKS: JSON.stringify([delivered, failing].map(({ url }) => ({ url, secrets: [SECRET] }))),
      WEBHOOK_POLL_MS: '50',
      // A failed delivery stays pending, its failure recorded, for the whole test.
      WEBHOOK_RETRY_BASE_MS: '3600000',
      API_KEYS: CALLER_KEY,
      OPERATOR_TOKEN,
    })
  })
  after(async () => {
    await f?.stop()
    await delivered?.close()
    await failing?.close()
  })

  const call = async (query: string, headers: Record<string, string> = operator, method = 'GET') => {
    const response = await fetch(`${f.base}/operator/deliveries${query}`, { method, headers })
    const body = (await response.json()) as { deliveries?: Delivery[]; errorCode?: string }
    openapi.check(PATH, method.toLowerCase(), response.status, body)
    return { status: response.status, body }
  }

  it('200: a delivered delivery and a failing one, under every filter', async () => {
    const answer = await f.post('settle', await f.payment(), { authorization: `Bearer ${CALLER_KEY}` })
    expect(answer.status).to.equal(200)
    const id = String((await f.rows()).find((row) => row.tx_hash === answer.body.txHash)!.id)
    const ofPayment = await waitFor('a delivery delivered and one failed', async () => {
      const { deliveries } = (await call(`?settlementId=${id}`)).body
      const states = deliveries!.map((d) => `${d.endpoint === delivered.url ? 'ok' : 'failing'} ${d.lastStatus}`)
      return states.includes('ok 204') && states.includes('failing 503') && deliveries!
    })
    expect(ofPayment.find((d) => d.lastStatus === 204)).to.include({ state: 'delivered', lastError: null })
    expect(ofPayment.find((d) => d.lastStatus === 503)).to.include({ state: 'pending', deliveredAt: null })
    const endpoint = encodeURIComponent(delivered.url)
    for (const query of [
      '',
      `?endpoint=${endpoint}&state=delivered&limit=1`,
      '?state=pending&limit=500',
      '?state=dead',
    ])
      expect((await call(query)).status, query).to.equal(200)
  })

  it("400: every bad query, refused by the document's parameters alike", async () => {
    const corpus: ReadonlyArray<[string, string]> = [
      ['state', 'pending'],
      ['state', 'dead'],
      ['state', 'lost'],
      ['state', 'PENDING'],
      ['state', ''],
      ['settlementId', '1'],
      ['settlementId', '123456789012345678'],
      ['settlementId', '1234567890123456789'],
      ['settlementId', '0'],
      ['settlementId', '01'],
      ['settlementId', '-1'],
      ['settlementId', 'x'],
      ['limit', '1'],
      ['limit', '500'],
      ['limit', '0'],
      ['limit', '501'],
      ['limit', '-1'],
      ['limit', '1.5'],
      ['limit', 'ten'],
      ['endpoint', 'https://example.com/hook'],
      ['endpoint', ''],
    ]
    for (const [name, text] of corpus) {
      const { status, body } = await call(`?${name}=${encodeURIComponent(text)}`)
      expect([200, 400], `${name}=${text}`).to.include(status)
      if (status === 400) expect(body.errorCode).to.equal('invalid_query')
      expect(openapi.acceptsQuery(PATH, 'get', name, text), `the document on ${name}=${text}`).to.equal(status === 200)
    }
    expect((await call('?state=pending&state=dead')).body).to.include({ errorCode: 'invalid_query' })
  })

  it("401: no token, a caller's API key, a wrong token; 405: another method", async () => {
    const refused: ReadonlyArray<Record<string, string>> = [
      {},
      { authorization: `Bearer ${CALLER_KEY}` },
      { authorization: 'Bearer wrong' },
    ]
    for (const headers of refused) expect((await call('', headers)).body).to.include({ errorCode: 'unauthorized' })
    expect((await call('', operator, 'POST')).status).to.equal(405)
  })
})
