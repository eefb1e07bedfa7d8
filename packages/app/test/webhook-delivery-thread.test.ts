import { expect } from 'chai'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createTestDatabase,
  webhookOutboxOpener,
  type TestDatabase,
} from '@x402-facilitator/adapters-persistence/testing'
import type { LeasedDelivery } from '@x402-facilitator/domain'
import pino from 'pino'
import { startDeliveryThread } from '../src/webhooks/delivery-thread-host.js'
import type { WebhookMetrics } from '../src/webhooks/webhook-metrics.js'
import { postWebhook } from '../src/webhooks/webhook-post.js'
import { signatureHeader } from '../src/webhooks/webhook-signature.js'
import { waitFor } from './support/wait-for.js'

const SECRET = 'delivery-thread-secret-0123456789'

const delivery = (eventId: string): LeasedDelivery => ({
  id: '1',
  endpoint: '',
  settlementId: '7',
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

/** A receiver answering 204, keeping each request's body, signature header and event id. */
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

describe('a webhook attempt', () => {
  it('is signed with the time it is given', async () => {
    const receiver = await startReceiver()
    try {
      const endpoint = { url: receiver.url, secrets: [SECRET], events: [], payees: [], networks: [] }
      const signedAt = new Date('2026-11-25T01:02:03Z')
      const outcome = await postWebhook(5_000)(endpoint, delivery('event-1'), signedAt, Date.now() + 10_000)
      expect(outcome).to.deep.equal({ delivered: true, status: 204 })
      const [got] = receiver.received
      expect(got!.eventId).to.equal('event-1')
      expect(JSON.parse(got!.body)).to.include({ id: 'event-1', kind: 'confirmed', previousState: 'submitted' })
      expect(got!.signature).to.equal(signatureHeader(got!.body, [SECRET], Math.floor(signedAt.getTime() / 1000)))
    } finally {
      await receiver.close()
    }
  })

  it('never outlives its lease: none sent once it ended, and no longer than what is left of it', async () => {
    const receiver = await startReceiver()
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const hanging = {
      url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
      secrets: [SECRET],
      events: [],
      payees: [],
      networks: [],
    }
    const endpoint = { url: receiver.url, secrets: [SECRET], events: [], payees: [], networks: [] }
    const post = postWebhook(60_000)
    try {
      const late = await post(endpoint, delivery('late'), new Date(), Date.now() - 1)
      expect(late).to.deep.equal({ delivered: false, status: null, error: 'its lease ran out before it was sent' })
      expect(receiver.received).to.deep.equal([])
      const cut = await post(hanging, delivery('cut'), new Date(), Date.now() + 300)
      expect(cut.delivered).to.equal(false)
      const bound = Number(/^no answer within (\d+) ms$/.exec((cut as { error: string }).error)?.[1])
      expect(bound, 'the time left of the lease, not the 60 s timeout').to.be.within(1, 300)
    } finally {
      await receiver.close()
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })
})

describe('the webhook delivery thread (real Postgres)', function () {
  this.timeout(60_000)
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(() => db?.drop())

  const record = (settlementId: number) =>
    db.knex.raw(
      `insert into settlement_events (settlement_id, kind, from_state, to_state, settlement)
       values (?, 'pending', 'claimed', 'submitted', ?::jsonb)`,
      [settlementId, JSON.stringify({ id: String(settlementId) })],
    )

  it('delivers from its own connections, reports its metrics, and is started again should it end', async () => {
    const receiver = await startReceiver()
    const delivered = new Map<string, number>()
    const metrics: WebhookMetrics = {
      delivered: (label, _lag, count = 1) => delivered.set(label, (delivered.get(label) ?? 0) + count),
      failed: () => undefined,
      deadLettered: () => undefined,
      backlog: () => undefined,
    }
    const lines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) })
    const endpoint = { url: receiver.url, secrets: [SECRET], events: [], payees: [], networks: [] }
    const thread = startDeliveryThread(
      {
        opener: webhookOutboxOpener({ connectionString: db.connectionString, timeoutMs: 10_000 }),
        endpoints: [endpoint],
        settings: {
          leaseMs: 10_000,
          retryBaseMs: 100,
          retryMaxMs: 1_000,
          deadAfterMs: 3_600_000,
          pruneAfterMs: 3_600_000,
          concurrency: 8,
          pollMs: 20,
        },
        timeoutMs: 5_000,
      },
      metrics,
      logger,
    )
    try {
      for (let id = 1; id <= 3; id++) await record(id)
      await waitFor('three deliveries', () => receiver.received.length >= 3)
      await waitFor('their metrics reported', () => delivered.get(receiver.url) === 3)
      const first = thread.current()!
      await first.terminate()
      await waitFor('another thread', () => thread.current() !== undefined && thread.current() !== first)
      expect(lines.some((line) => line.includes('the delivery thread ended'))).to.equal(true)
      await record(4)
      await waitFor('the fourth delivered by the new thread', () => receiver.received.length >= 4)
      expect(receiver.received.map(({ body }) => JSON.parse(body).settlement.id)).to.deep.equal(['1', '2', '3', '4'])
    } finally {
      await thread.stop()
      await receiver.close()
    }
    expect(thread.current()).to.equal(undefined)
    const pending = await db.knex('webhook_deliveries').whereNot({ state: 'delivered' }).count()
    expect(Number(pending[0]!.count)).to.equal(0)
  })
})
