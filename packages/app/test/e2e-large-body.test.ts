import { expect } from 'chai'
import http from 'node:http'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/** One POST of `size` bytes with Content-Length set, written as fast as the socket takes it, by Node's own client. */
const postLarge = (url: string, size: number): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const payload = Buffer.alloc(size, 0x20)
    payload[0] = 0x7b // '{'
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': size } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })

describe('a body over the limit gets its 413, every time, whatever the client is still writing (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator()
  })
  after(() => f?.stop())

  it("2 MiB with Content-Length, written at once by Node's http client, 100 times in a row: 413 in the endpoint's shape", async () => {
    for (let i = 0; i < 100; i++) {
      const res = await postLarge(`${f.base}/settle`, 2 * 1024 * 1024)
      expect(res.status, `attempt ${i + 1}`).to.equal(413)
      expect(JSON.parse(res.body)).to.include({ success: false, errorCode: 'payload_too_large' })
    }
  })

  it('2 MiB through undici (fetch), 100 times, and 16 MiB once: 413, never a reset', async () => {
    for (const [size, times] of [[2 * 1024 * 1024, 100], [16 * 1024 * 1024, 1]] as const) {
      for (let i = 0; i < times; i++) {
        const res = await fetch(`${f.base}/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(size, 0x20) })
        expect(res.status, `${size} bytes, attempt ${i + 1}`).to.equal(413)
        expect(await res.json()).to.include({ valid: false, reasonCode: 'payload_too_large' })
      }
    }
  })
})
