// The services of the webhook-settle phase: like the lone one (one transaction per payment), each with its own
// facilitator key (funded from the node's unlocked account) and database on the bench's Postgres (one's events are not
// the other's to deliver): `webhook` with one endpoint in its --config file (a receiver on a thread of this process
// answering 204 to each delivery, checking its signature), `control` with none.
import { writeFileSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
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

/**
 * A local receiver on its own thread (bench/lib/setup/webhook-receiver-thread.mjs): { url, stats } where `stats`
 * reads its live counts (received, checked, badSignatures, distinctEvents).
 */
const startReceiver = async () => {
  const counts = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT))
  const thread = new Worker(new URL('./webhook-receiver-thread.mjs', import.meta.url), {
    workerData: { secret: SECRET, counts },
  })
  const { port } = await new Promise((resolve, reject) => {
    thread.once('message', resolve)
    thread.once('error', reject)
  })
  onCleanUp(() => new Promise((resolve) => thread.once('exit', resolve).postMessage('close')))
  const stats = {
    get received() {
      return Atomics.load(counts, 0)
    },
    get checked() {
      return Atomics.load(counts, 1)
    },
    get badSignatures() {
      return Atomics.load(counts, 2)
    },
    get distinctEvents() {
      return Atomics.load(counts, 3)
    },
  }
  return { url: `http://127.0.0.1:${port}/bench-hooks`, stats }
}

/** A funded fresh key (or BENCH_WEBHOOK_FACILITATOR_KEY<suffix>). */
const fundedKey = async (rpc, suffix) => {
  const given = process.env[`BENCH_WEBHOOK_FACILITATOR_KEY${suffix}`]
  if (given) return accountOf(given)
  const facilitator = freshAccount()
  const [funder] = await rpc.call('eth_accounts')
  if (!funder) throw new Error('webhook-settle funds its own keys from an unlocked account: none on this node')
  await sendMined(rpc, funder, { to: facilitator.address, value: numberToHex(FACILITATOR_ETH) })
  return facilitator
}

/** A database of its own on the bench's Postgres: its URL. */
const freshDatabase = async (database, name) => {
  const admin = new pg.Client({ connectionString: database.limitUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${name}`)
    await admin.query(`create database ${name}`)
  } catch (error) {
    throw new Error(`webhook-settle needs databases of its own (or drop it from --phases): ${error.message}`)
  } finally {
    await admin.end()
  }
  const url = new URL(database.limitUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** One of the phase's two services: { service, facilitator, db (a pool on its database) }. */
const startOne = async ({ config, chain, database, rpc, profileDir }, { name, webhooks }) => {
  const facilitator = await fundedKey(rpc, name === 'webhook' ? '' : '_CONTROL')
  const url = await freshDatabase(database, `x402_bench_${name}`)
  const db = new pg.Pool({ connectionString: url, max: 2 })
  onCleanUp(() => db.end())
  const configFile = path.join(config.out, `${name}-service.json`)
  writeFileSync(configFile, JSON.stringify({ webhooks }))
  const service = await startBenchService({
    config,
    chain,
    database: { ...database, serviceUrl: url },
    profileDir: path.join(profileDir, name),
    facilitatorKey: facilitator.privateKey,
    env: { BATCHING: 'off' },
    label: `the ${name} service`,
    logName: `service-${name}.log`,
    appArgs: ['--config', configFile],
  })
  return { service, facilitator, db }
}

/**
 * The phase's two services, alike but for one webhook endpoint: `webhook` (delivering to a receiver in this process)
 * and `control` (none), each with its own key and database. { webhook, control, receiver ({ url, stats }) }
 */
export const startWebhookServices = async (context) => {
  const receiver = await startReceiver()
  say(`  webhook receiver at ${receiver.url}`)
  const webhook = await startOne(context, { name: 'webhook', webhooks: [{ url: receiver.url, secrets: [SECRET] }] })
  const control = await startOne(context, { name: 'control', webhooks: [] })
  return { webhook, control, receiver }
}
