import { expect } from 'chai'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LeasedDelivery } from '@x402-facilitator/domain'
import pino from 'pino'
import { startSenderThread } from '../src/webhooks/sender-thread.js'
import { signatureHeader } from '../src/webhooks/webhook-signature.js'

const SECRET = 'sender-thread-secret-0123456789'

const delivery = (eventId: string): LeasedDelivery => ({
  id: '1',
  endpoint: '',
  leaseToken: 'token',
  attempts: 1,
  event: {
    eventId,
    kind: 'confirmed',
    fromState: 'submitted',
    toState: 'confirmed',
    createdAt: new Date('2026-11-25T00:00:00Z'),
    settlement: { id: '7', value: '10000' },
  },
})

/** A receiver answering 204, keeping each request's body and signature header. */
const startReceiver = async () => {
  const received: { body: string; signature: string; eventId: string }[] = []
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: String(request.headers['x402-facilitator-signature']),
        eventId: String(request.headers['x402-facilitator-event-id']),
      })
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe('the webhook sender thread', () => {
  it('signs each attempt with the time it is given and sends it from its own thread', async () => {
    const receiver = await startReceiver()
    const endpoint = { url: receiver.url, secrets: [SECRET], events: [] }
    const sender = startSenderThread({ endpoints: [endpoint], timeoutMs: 5_000 }, pino({ level: 'silent' }))
    try {
      const signedAt = new Date('2026-11-25T01:02:03Z')
      const outcome = await sender.post(endpoint, delivery('event-1'), signedAt, Date.now() + 10_000)
      expect(outcome).to.deep.equal({ delivered: true, status: 204 })
      const [got] = receiver.received
      expect(got!.eventId).to.equal('event-1')
      expect(JSON.parse(got!.body)).to.include({ id: 'event-1', kind: 'confirmed', previousState: 'submitted' })
      expect(got!.signature).to.equal(signatureHeader(got!.body, [SECRET], Math.floor(signedAt.getTime() / 1000)))
    } finally {
      await sender.stop()
      await receiver.close()
    }
  })

  it('a thread that dies fails its attempt; the next attempt starts another; once stopped, none is sent', async () => {
    const receiver = await startReceiver()
    const endpoint = { url: receiver.url, secrets: [SECRET], events: [] }
    const sender = startSenderThread({ endpoints: [endpoint], timeoutMs: 5_000 }, pino({ level: 'silent' }))
    try {
      // A delivery with no event throws inside the thread, which then exits.
      const broken = { ...delivery('broken'), event: undefined } as unknown as LeasedDelivery
      const lost = await sender.post(endpoint, broken, new Date(), Date.now() + 10_000)
      expect(lost.delivered).to.equal(false)
      expect(lost)
        .to.have.property('error')
        .that.matches(/^the sender thread stopped/)
      expect(await sender.post(endpoint, delivery('event-2'), new Date(), Date.now() + 10_000)).to.deep.equal({
        delivered: true,
        status: 204,
      })
      await sender.stop()
      const after = await sender.post(endpoint, delivery('event-3'), new Date(), Date.now() + 10_000)
      expect(after).to.deep.equal({ delivered: false, status: null, error: 'the service is stopping' })
      expect(receiver.received.map(({ eventId }) => eventId)).to.deep.equal(['event-2'])
    } finally {
      await sender.stop()
      await receiver.close()
    }
  })

  it('an attempt never outlives its lease: none sent once it ended, and no longer than what is left of it', async () => {
    const receiver = await startReceiver()
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const hanging = {
      url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
      secrets: [SECRET],
      events: [],
    }
    const endpoint = { url: receiver.url, secrets: [SECRET], events: [] }
    const sender = startSenderThread({ endpoints: [endpoint, hanging], timeoutMs: 60_000 }, pino({ level: 'silent' }))
    try {
      const late = await sender.post(endpoint, delivery('late'), new Date(), Date.now() - 1)
      expect(late).to.deep.equal({ delivered: false, status: null, error: 'its lease ran out before it was sent' })
      expect(receiver.received).to.deep.equal([])
      const cut = await sender.post(hanging, delivery('cut'), new Date(), Date.now() + 300)
      expect(cut.delivered).to.equal(false)
      const bound = Number(/^no answer within (\d+) ms$/.exec((cut as { error: string }).error)?.[1])
      expect(bound, 'the time left of the lease, not the 60 s timeout').to.be.within(1, 300)
    } finally {
      await sender.stop()
      await receiver.close()
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })
})
