import { expect } from 'chai'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendWebhook } from '../src/webhooks/webhook-send.js'

interface Seen {
  readonly url: string
  readonly authorization: string | undefined
  readonly body: string
}

/** A local server answering each request with `answer`; what it saw, and how many connections it was opened. */
const serve = async (answer: (request: IncomingMessage, response: ServerResponse) => void) => {
  const seen: Seen[] = []
  let connections = 0
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({ url: request.url ?? '', authorization: request.headers.authorization, body })
      answer(request, response)
    })
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return { base, seen, connections: () => connections, close }
}

const HEADERS = { 'x402-facilitator-event-id': 'event-1' }

describe('one webhook POST', () => {
  it('is delivered on a 2xx; the answer body is drained and the connections serve the next ones', async () => {
    const receiver = await serve((_, response) => response.writeHead(200).end('x'.repeat(64 * 1024)))
    const bodies = Array.from({ length: 10 }, (_, n) => `{"n":${n}}`)
    try {
      for (const body of bodies)
        expect(await sendWebhook(`${receiver.base}/hooks?tenant=7`, body, HEADERS, 5_000)).to.deep.equal({
          delivered: true,
          status: 200,
        })
      expect(receiver.seen.map(({ url, body }) => [url, body])).to.deep.equal(
        bodies.map((body) => ['/hooks?tenant=7', body]),
      )
      // Ten in a row: one connection, and a second one opened while the first finished reading its answer.
      expect(receiver.connections()).to.be.at.most(2)
    } finally {
      await receiver.close()
    }
  })

  it('follows no redirect: a 3xx is a failure, and its target gets nothing', async () => {
    const target = await serve((_, response) => response.writeHead(204).end())
    const redirecting = await serve((_, response) => response.writeHead(302, { location: `${target.base}/` }).end())
    try {
      const outcome = await sendWebhook(`${redirecting.base}/`, '{}', HEADERS, 5_000)
      expect(outcome).to.deep.equal({ delivered: false, status: 302, error: 'redirect 302 not followed' })
      expect(target.seen).to.deep.equal([])
    } finally {
      await Promise.all([target.close(), redirecting.close()])
    }
  })

  it("sends a URL's credentials as Basic authorization, and a non-2xx answer is a failure with its status", async () => {
    const receiver = await serve((_, response) => response.writeHead(503).end())
    try {
      const url = `${receiver.base.replace('http://', 'http://hook%40user:p%3Ass@')}/in`
      const outcome = await sendWebhook(url, '{}', HEADERS, 5_000)
      expect(outcome).to.deep.equal({ delivered: false, status: 503, error: 'status 503' })
      expect(receiver.seen[0]!.authorization).to.equal(`Basic ${Buffer.from('hook@user:p:ss').toString('base64')}`)
    } finally {
      await receiver.close()
    }
  })

  it('an endpoint nobody listens on is a failure that says why, never a throw', async () => {
    const gone = await serve(() => undefined)
    const url = `${gone.base}/`
    await gone.close()
    const outcome = await sendWebhook(url, '{}', HEADERS, 5_000)
    expect(outcome.delivered).to.equal(false)
    expect(outcome).to.include({ status: null })
    expect((outcome as { error: string }).error).to.match(/ECONNREFUSED/)
  })
})
