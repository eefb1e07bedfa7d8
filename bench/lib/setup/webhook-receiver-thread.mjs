// The webhook-settle phase's receiver, on a thread of its own: it answers three deliveries per payment, and on the
// load generator's event loop those answers would hold back the settle answers being timed. It stands in for a
// resource server on another machine, so it runs at the lowest priority: on this machine's cores it takes what the
// services measured leave. Counts go to `counts` (shared): received, signatures checked, bad signatures, distinct
// event ids.
import { createHmac } from 'node:crypto'
import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { createServer } from 'node:http'

// Linux: /proc/thread-self names this thread's id, whose nice value is its own.
setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19)

const { secret, counts } = workerData
const [RECEIVED, CHECKED, BAD, DISTINCT] = [0, 1, 2, 3]
const eventIds = new Set()

const server = createServer((request, response) => {
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    // One delivery in 8 is checked: the receiver shares the machine's cores with the services measured.
    if (Atomics.add(counts, RECEIVED, 1) % 8 === 0) {
      const body = Buffer.concat(chunks).toString('utf8')
      const header = String(request.headers['x402-facilitator-signature'] ?? '')
      const t = /t=(\d+)/.exec(header)?.[1]
      const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
      if (!header.includes(`v1=${v1}`)) Atomics.add(counts, BAD, 1)
      Atomics.add(counts, CHECKED, 1)
    }
    eventIds.add(String(request.headers['x402-facilitator-event-id']))
    Atomics.store(counts, DISTINCT, eventIds.size)
    response.writeHead(204).end()
  })
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => process.exit(0))
})
