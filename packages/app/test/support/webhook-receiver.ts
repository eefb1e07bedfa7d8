import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedEvent {
  readonly id: string
  readonly kind: string
  readonly settlement: Record<string, unknown>
  /** The signed settlement receipt it carries, if any. */
  readonly receipt?: Record<string, unknown>
  readonly signature: string
  readonly body: string
  /** The signature's timestamp (unix seconds). */
  readonly signedAt: number
}

export interface WebhookReceiver {
  readonly url: string
  /** Every request, in arrival order (duplicates included). */
  readonly requests: ReceivedEvent[]
  /** Each event once (the first arrival of its id), in arrival order: what a de-duplicating receiver keeps. */
  readonly events: () => ReceivedEvent[]
  /** Answer this status (then nothing is recorded as delivered) to the next `n` requests. */
  readonly failNext: (n: number, status?: number) => void
  /** Answers every request with `status` until called with undefined. */
  readonly answerAlways: (status: number | undefined) => void
  /** While on, requests are held unanswered (counted in `held`); off: the held ones are dropped. */
  readonly hold: (on: boolean) => void
  readonly held: () => number
  /** Answers each request after this long [0]. */
  readonly answerAfter: (ms: number) => void
  /**
   * Times a request arrived while another of the same event id was still live: unanswered, and not given up by its
   * sender (a sender that timed out and closed the connection tries again, one attempt at a time).
   */
  readonly overlaps: () => number
  readonly close: () => Promise<void>
}

/** Whether `header` (`t=…,v1=…[,v1=…]`) holds a v1 of `body` under `secret` (Stripe's scheme). */
export const verifiesWith = (header: string, body: string, secret: string): boolean => {
  const parts = header.split(',').map((part) => part.split('=') as [string, string])
  const t = parts.find(([k]) => k === 't')?.[1]
  if (t === undefined) return false
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest()
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v, 'hex')
      return given.length === expected.length && timingSafeEqual(given, expected)
    })
}

/** A webhook receiver on a free port: records what a delivery carries, answers 204 unless told to fail. */
export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  const requests: ReceivedEvent[] = []
  let failures = 0
  let failStatus = 500
  let always: number | undefined
  let holding = false
  let delayMs = 0
  let overlaps = 0
  const held: ServerResponse[] = []
  const live = new Map<string, number>()
  const ended = (id: string) => live.set(id, (live.get(id) ?? 1) - 1)
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (holding) return void held.push(response)
      if (always !== undefined) return void response.writeHead(always).end()
      if (failures > 0) {
        failures--
        return void response.writeHead(failStatus).end()
      }
      const body = Buffer.concat(chunks).toString('utf8')
      const parsed = JSON.parse(body) as Pick<ReceivedEvent, 'id' | 'kind' | 'settlement' | 'receipt'>
      const signature = String(request.headers['x402-facilitator-signature'] ?? '')
      const signedAt = Number(/t=(\d+)/.exec(signature)?.[1])
      if (!response.destroyed) {
        if ((live.get(parsed.id) ?? 0) > 0) overlaps++
        live.set(parsed.id, (live.get(parsed.id) ?? 0) + 1)
        // Answered, or given up by its sender: no longer live.
        response.once('close', () => ended(parsed.id))
      }
      setTimeout(() => {
        requests.push({ ...parsed, signature, body, signedAt })
        response.writeHead(204).end()
      }, delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    events: () => requests.filter((event, i) => requests.findIndex((other) => other.id === event.id) === i),
    failNext: (n, status = 500) => {
      failures = n
      failStatus = status
    },
    answerAlways: (status) => (always = status),
    hold: (on) => {
      holding = on
      if (!on) for (const response of held.splice(0)) response.destroy()
    },
    held: () => held.length,
    answerAfter: (ms) => (delayMs = ms),
    overlaps: () => overlaps,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
