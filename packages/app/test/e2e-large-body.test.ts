import { expect } from 'chai'
import http from 'node:http'
import { keepCoresBusy } from './support/busy-cores.js'
import { postInChunksFromAnotherProcess } from './support/chunked-post-client.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/** One POST of `size` bytes with Content-Length set, written as fast as the socket takes it, by Node's own client. */
const postLarge = (url: string, size: number): Promise<{ status: number; body: string; connection?: string }> =>
  new Promise((resolve, reject) => {
    const payload = Buffer.alloc(size, 0x20)
    payload[0] = 0x7b // '{'
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': size } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            connection: res.headers.connection,
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(payload)
  })

describe('an early answer reaches a client still writing its body, on a busy machine (real app, issue 23 item 14)', function () {
  this.timeout(300_000)
  let f: TestFacilitator
  // The same, with one request an hour per client: the 429s.
  let limited: TestFacilitator
  let busy: { stop: () => void } | undefined
  before(async () => {
    f = await startTestFacilitator({ API_KEYS: 'key-one' })
    limited = await startTestFacilitator({ API_KEYS: 'key-one', RATE_LIMIT: '1', RATE_LIMIT_WINDOW_SECONDS: '3600' })
    busy = await keepCoresBusy()
  })
  after(async () => {
    busy?.stop()
    await f?.stop()
    await limited?.stop()
  })

  it('2 MiB in 64 KiB steps on a fresh connection, 100 times while every core spins: 413 every time, never a reset', async () => {
    const outcomes = await postInChunksFromAnotherProcess(`${f.base}/settle`, 2 * 1024 * 1024, 100, {
      authorization: 'Bearer key-one',
    })
    expect(outcomes).to.have.length(100)
    expect(
      outcomes.filter((outcome) => outcome !== 413),
      'anything but a 413',
    ).to.deep.equal([])
  })

  it('the other early answers with a body unread (401, 415, 429) arrive too', async () => {
    const size = 2 * 1024 * 1024
    const [unauthorized, unsupported, limitedAnswers] = await Promise.all([
      postInChunksFromAnotherProcess(`${f.base}/settle`, size, 30),
      postInChunksFromAnotherProcess(`${f.base}/verify`, size, 30, {
        authorization: 'Bearer key-one',
        'content-type': 'text/plain',
      }),
      postInChunksFromAnotherProcess(`${limited.base}/verify`, size, 30, { authorization: 'Bearer key-one' }),
    ])
    const outcomes = { unauthorized, unsupported, limited: limitedAnswers }
    // The limited service's first request passed its limit (and was too large).
    expect(outcomes).to.deep.equal({
      unauthorized: Array(30).fill(401),
      unsupported: Array(30).fill(415),
      limited: [413, ...Array(29).fill(429)],
    })
  })
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
      // Its body read and discarded, the connection is closed, never reused (item 14).
      expect(res.connection).to.equal('close')
    }
  })

  it('2 MiB through undici (fetch), 100 times, and 16 MiB once: 413, never a reset', async () => {
    for (const [size, times] of [
      [2 * 1024 * 1024, 100],
      [16 * 1024 * 1024, 1],
    ] as const) {
      for (let i = 0; i < times; i++) {
        const res = await fetch(`${f.base}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.alloc(size, 0x20),
        })
        expect(res.status, `${size} bytes, attempt ${i + 1}`).to.equal(413)
        expect(await res.json()).to.include({ valid: false, reasonCode: 'payload_too_large' })
      }
    }
  })
})
