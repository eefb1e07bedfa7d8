// The service of the webhook-settle phase: like the lone one (one transaction per payment), with its own facilitator
// key (funded from the node's unlocked account) and one webhook endpoint configured (its --config file): a receiver in
// this process answering 204 to each delivery, checking its signature. It has a database of its own on the same
// Postgres (the lone service's events are not its to deliver).
import { createHmac } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import pg from 'pg'
import { numberToHex } from 'viem'
import { say } from '../basics.mjs'
import { onCleanUp } from '../cleanup.mjs'
import { accountOf, freshAccount } from '../payments.mjs'
import { sendMined } from './chain.mjs'
import { startBenchService } from './service.mjs'

const FACILITATOR_ETH = 100n * 10n ** 18n
const SECRET = 'bench-webhook-secret-0123456789'

/** A local receiver: { url, received (deliveries answered), badSignatures, close }. */
const startReceiver = async () => {
  const stats = { received: 0, badSignatures: 0, eventIds: new Set() }
  const server = createServer((request, response) => {
    const chunks = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const header = String(request.headers['x402-facilitator-signature'] ?? '')
      const t = /t=(\d+)/.exec(header)?.[1]
      const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')
      if (!header.includes(`v1=${v1}`)) stats.badSignatures++
      stats.received++
      stats.eventIds.add(String(request.headers['x402-facilitator-event-id']))
      response.writeHead(204).end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () => new Promise((resolve) => server.close(() => resolve()))
  onCleanUp(close)
  return { url: `http://127.0.0.1:${server.address().port}/bench-hooks`, stats }
}

/** { service, facilitator ({ address, privateKey }), receiver ({ url, stats }), db (a pool on its database) } */
export const startWebhookService = async ({ config, chain, database, rpc, profileDir }) => {
  const facilitator = process.env.BENCH_WEBHOOK_FACILITATOR_KEY
    ? accountOf(process.env.BENCH_WEBHOOK_FACILITATOR_KEY)
    : freshAccount()
  if (!process.env.BENCH_WEBHOOK_FACILITATOR_KEY) {
    const [funder] = await rpc.call('eth_accounts')
    if (!funder) throw new Error('webhook-settle funds its own key from an unlocked account: none on this node')
    await sendMined(rpc, funder, { to: facilitator.address, value: numberToHex(FACILITATOR_ETH) })
  }
  const admin = new pg.Client({ connectionString: database.limitUrl })
  await admin.connect()
  try {
    await admin.query('drop database if exists x402_bench_webhooks')
    await admin.query('create database x402_bench_webhooks')
  } catch (error) {
    throw new Error(`webhook-settle needs a database of its own (or drop it from --phases): ${error.message}`)
  } finally {
    await admin.end()
  }
  const url = new URL(database.limitUrl)
  url.pathname = '/x402_bench_webhooks'
  const db = new pg.Pool({ connectionString: url.toString(), max: 2 })
  onCleanUp(() => db.end())
  const receiver = await startReceiver()
  const configFile = path.join(config.out, 'webhook-service.json')
  writeFileSync(configFile, JSON.stringify({ webhooks: [{ url: receiver.url, secrets: [SECRET] }] }))
  say(`  webhook receiver at ${receiver.url}`)
  const service = await startBenchService({
    config,
    chain,
    database: { ...database, serviceUrl: url.toString() },
    profileDir: path.join(profileDir, 'webhook'),
    facilitatorKey: facilitator.privateKey,
    env: { BATCHING: 'off' },
    label: 'the webhook service',
    logName: 'service-webhook.log',
    appArgs: ['--config', configFile],
  })
  return { service, facilitator, receiver, db }
}
