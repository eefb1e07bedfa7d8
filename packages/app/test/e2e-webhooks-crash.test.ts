import { writeFile, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import type { Eip712Domain } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { expect } from 'chai'
import { generatePrivateKey } from 'viem/accounts'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { spawnApp, type AppProcess } from './support/app-process.js'
import { anvilRpc } from './support/chain-control.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'
import { PAYEE } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'
import { startWebhookReceiver, verifiesWith, type WebhookReceiver } from './support/webhook-receiver.js'
import { postJson } from './support/json-client.js'

const SECRET = 'whsec-crash-0123456789abcdef'

/** docs/ARCHITECTURE.md §5.9: deliveries survive kill -9; two replicas never send one event at once (processes). */
describe('webhooks: kill -9 mid-delivery, then two replicas on one database', function () {
  this.timeout(180_000)
  let chain: LocalChain
  let db: TestDatabase
  let receiver: WebhookReceiver
  let configFile: string
  const secondKey = generatePrivateKey()
  const thirdKey = generatePrivateKey()
  const apps: AppProcess[] = []
  let paid = 0
  let domain: Eip712Domain
  before(async () => {
    chain = await startLocalChain({ payers: 3, moreFacilitatorKeys: [secondKey, thirdKey] })
    const read = await makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress).domain()
    domain = E.getOrElseW(() => {
      throw new Error('no token domain')
    })(read)
    db = await createTestDatabase()
    receiver = await startWebhookReceiver()
    configFile = path.join(await mkdtemp(path.join(tmpdir(), 'webhooks-')), 'config.json')
    await writeFile(configFile, JSON.stringify({ webhooks: [{ url: receiver.url, secrets: [SECRET] }] }))
  })
  after(async () => {
    for (const app of apps) await app.kill('SIGKILL')
    await receiver?.close()
    await db?.drop()
    await chain?.stop()
  })

  const start = async (key: string, config = configFile) => {
    const env = {
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: chain.tokenAddress,
      FACILITATOR_PRIVATE_KEY: key,
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      DATABASE_URL: db.connectionString,
      CONFIRMATIONS: '0',
      RECOVERY_INTERVAL_MS: '500',
      ALLOW_OPEN: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_LEASE_MS: '2000',
      WEBHOOK_POLL_MS: '20',
      WEBHOOK_RETRY_BASE_MS: '100',
    }
    const app = await spawnApp(env, 60_000, ['--config', config])
    apps.push(app)
    return app
  }
  const settle = async (app: AppProcess) => {
    const payer = chain.payers[paid++ % chain.payers.length]!
    const body = await signedPaymentBody({
      payerKey: payer.privateKey,
      payer: payer.address,
      payTo: PAYEE,
      value: 1_000n + BigInt(paid),
      network: `eip155:${chain.chainId}`,
      domain,
    })
    expect((await postJson(`${app.url}/settle`, body)).status).to.equal(200)
  }
  /** Every event recorded, each received (once its id is de-duplicated) in the order recorded per payment. */
  const allReceived = () =>
    waitFor('every recorded event received', async () => {
      const recorded: Array<{ event_id: string; settlement_id: string; kind: string }> = await db
        .knex('settlement_events')
        .orderBy('id')
        .select('event_id', 'settlement_id', 'kind')
      const finals = recorded.filter((event) => event.kind === 'final').length
      const received = new Set(receiver.events().map((event) => event.id))
      if (finals < paid || !recorded.every((event) => received.has(event.event_id))) return undefined
      return recorded
    })
  // On a timeout, what the database holds, to tell a lost event from a slow one. A block mined first: the finality
  // watcher judges rows at a new head, and the last payment's row may have been confirmed after the last one it saw.
  const everyEventReceived = async () => {
    await anvilRpc(chain.rpcUrl, 'evm_mine')
    return allReceived().catch(async (error: Error) => {
      const events = await db
        .knex('settlement_events')
        .select('kind', 'fanned_out')
        .count()
        .groupBy('kind', 'fanned_out')
      const deliveries = await db
        .knex('webhook_deliveries')
        .select('state', 'attempts', 'last_error', 'leased_until', 'next_attempt_at')
        .whereNot({ state: 'delivered' })
      const states = await db.knex('settlements').select('state').count().groupBy('state')
      const received = new Set(receiver.events().map((event) => event.id))
      const missing = (
        await db.knex('settlement_events').select('event_id', 'kind', 'settlement_id', 'fanned_out')
      ).filter((event) => !received.has(event.event_id))
      throw new Error(`${error.message}: ${JSON.stringify({ events, deliveries, states, paid, missing })}`)
    })
  }
  const inOrder = (recorded: ReadonlyArray<{ event_id: string; settlement_id: string }>) => {
    const events = receiver.events()
    for (const id of new Set(recorded.map((event) => event.settlement_id))) {
      const want = recorded.filter((event) => event.settlement_id === id).map((event) => event.event_id)
      const got = events.filter((event) => event.settlement.id === id).map((event) => event.id)
      expect(got).to.deep.equal(want)
    }
    expect(events.length).to.equal(recorded.length)
    for (const event of receiver.requests) expect(verifiesWith(event.signature, event.body, SECRET)).to.equal(true)
  }

  it('kill -9 while a delivery is in flight: after a restart every event arrives, in order per payment', async () => {
    receiver.hold(true)
    const first = await start(chain.facilitator.privateKey)
    for (let i = 0; i < 3; i++) await settle(first)
    await waitFor('a delivery in flight', () => receiver.held() > 0)
    await first.kill('SIGKILL')
    apps.splice(apps.indexOf(first), 1)
    receiver.hold(false)
    await start(chain.facilitator.privateKey)
    const recorded = await everyEventReceived()
    inOrder(recorded)
    expect(recorded.map((event) => event.kind)).to.include.members(['pending', 'confirmed', 'final'])
  })

  it('two replicas deliver together: no event is sent by both at once', async () => {
    receiver.answerAfter(30)
    const replicas = [apps[0]!, await start(secondKey)]
    for (let i = 0; i < 6; i++) await settle(replicas[i % 2]!)
    inOrder(await everyEventReceived())
    expect(receiver.overlaps()).to.equal(0)
  })

  it('a replica with no endpoint configured takes no event from those that have one', async () => {
    const noEndpoints = path.join(path.dirname(configFile), 'none.json')
    await writeFile(noEndpoints, JSON.stringify({}))
    const bare = await start(thirdKey, noEndpoints)
    for (let i = 0; i < 6; i++) await settle(bare)
    const got = await everyEventReceived()
    inOrder(got)
  })

  it('webhooks from the environment stop start-up: the config file only', async () => {
    const refused = await spawnApp({
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: chain.tokenAddress,
      FACILITATOR_PRIVATE_KEY: generatePrivateKey(),
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      DATABASE_URL: db.connectionString,
      ALLOW_OPEN: 'true',
      WEBHOOKS: JSON.stringify([{ url: receiver.url, secrets: [SECRET] }]),
    }).then(
      () => 'started',
      (error: Error) => error.message,
    )
    expect(refused).to.include('webhooks come from the --config file only')
    expect(refused).to.not.include(SECRET)
  })
})
