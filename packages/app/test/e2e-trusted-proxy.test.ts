import { expect } from 'chai'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * Issue 23 item 11: behind one trusted proxy the client is the address that proxy appended (the rightmost of
 * X-Forwarded-For), never what the client wrote to the left of it.
 */
describe('TRUST_PROXY counts the proxies: a client cannot pick its own address (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ TRUST_PROXY: '1', RATE_LIMIT: '3', RATE_LIMIT_WINDOW_SECONDS: '60' })
  })
  after(() => f?.stop())

  it('two clients spoofing different leftmost addresses through the same proxy-added one share its limit', async () => {
    const body = await f.payment()
    const statuses: number[] = []
    for (const spoofed of ['1.2.3.4', '5.6.7.8', '9.10.11.12', '13.14.15.16']) {
      statuses.push((await f.post('verify', body, { 'x-forwarded-for': `${spoofed}, 198.51.100.7` })).status)
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429])
    // Another address added by the proxy is another client.
    expect((await f.post('verify', body, { 'x-forwarded-for': '1.2.3.4, 198.51.100.8' })).status).to.equal(200)
  })

  it('lookups are limited like verify and settle', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (
          await fetch(`${f.base}/settlements/0x${'00'.repeat(32)}`, {
            headers: { 'x-forwarded-for': `10.0.0.${i}, 198.51.100.9` },
          })
        ).status,
      )
    }
    expect(statuses).to.deep.equal([404, 404, 404, 429])
  })
})
