import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import { FakeJournal } from '@x402-facilitator/domain/fake-journal'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { pino } from 'pino'
import { loadConfig } from '../src/config.js'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { startFacilitator, type RunningFacilitator } from '../src/start-facilitator.js'
import { waitFor } from './support/wait-for.js'
import { openFakeStore } from './support/fake-store.js'
import { PAYEE } from './support/test-facilitator.js'
import { getJson, postJson } from './support/json-client.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

/**
 * docs/ARCHITECTURE.md §1: swapping the store is replacing one module. The whole app, composed as in production, with
 * the in-memory journal in place of Postgres (no DATABASE_URL, and no embedded Postgres started either); the chain is
 * still a real anvil.
 */
describe('the app composed with a fake store (the store swapped in one module)', function () {
  this.timeout(120_000)
  let chain: LocalChain
  let running: RunningFacilitator
  let domain: Eip712Domain
  const journal = new FakeJournal(() => new Date())
  const dataDir = mkdtempSync(path.join(tmpdir(), 'x402-fake-store-'))

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    const config = E.getOrElseW((line: string) => {
      throw new Error(line)
    })(
      loadConfig({
        RPC_URL: chain.rpcUrl,
        ASSET_ADDRESS: chain.tokenAddress,
        FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'silent',
        CONFIRMATIONS: '0',
        RATE_LIMIT: '0',
        ALLOW_OPEN: 'true',
        ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      }),
    )
    running = await startFacilitator({ config, logger: pino({ level: 'silent' }), store: openFakeStore(journal) })
    const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress)
    domain = E.getOrElseW(() => {
      throw new Error('no token domain')
    })(await reader.domain())
  })
  after(async () => {
    await running?.stop()
    await chain?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const base = () => `${running.url}/api/facilitator`
  const post = (endpoint: 'verify' | 'settle', body: unknown) => postJson(`${base()}/${endpoint}`, body)
  const get = getJson

  it('verifies, settles once, looks up and probes through the fake journal; no Postgres is started', async () => {
    const payer = chain.payers[0]!
    const body = await signedPaymentBody({
      payerKey: payer.privateKey,
      payer: payer.address,
      payTo: PAYEE,
      value: 1_000_000n,
      network: running.policy.network,
      domain,
    })
    expect((await post('verify', body)).body).to.include({ valid: true })
    const settled = await post('settle', body)
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: true })
    const txHash = settled.body.txHash as string
    // The row is the fake journal's: the settle went through the store the composition was given.
    const rows = [...journal.rows.values()]
    expect(rows.map((row) => [row.payer, row.txHash])).to.deep.equal([[payer.address.toLowerCase() as Address, txHash]])

    // CONFIRMATIONS=0: final at the finality watcher's next head, which reads and marks the fake journal too.
    const byHash = await waitFor('the settlement final', async () => {
      const found = await get(`${base()}/settlements/${txHash}`)
      return found.body.state === 'final' ? found : undefined
    })
    expect(byHash.status).to.equal(200)
    expect(byHash.body).to.include({ payer: body.paymentPayload.payload.authorization.from, txHash, value: '1000000' })
    const { from, nonce } = body.paymentPayload.payload.authorization
    expect((await get(`${base()}/settlements?payer=${from}&nonce=${nonce}`)).body).to.deep.equal(byHash.body)

    // Replayed: refused with the one transaction, never a second transfer.
    const replayed = await post('settle', body)
    expect(replayed.body).to.include({ success: false, errorCode: 'authorization_already_used', txHash })

    const root = running.url
    const ready = await get(`${root}/readyz`)
    expect(ready.status).to.equal(200)
    expect(ready.body.checks).to.deep.include({
      database: { ok: true, detail: 'answers' },
      migrations: { ok: true, detail: 'all applied' },
      replicaLock: { ok: true, detail: 'held' },
    })
    const metrics = await (await fetch(`${root}/metrics`)).text()
    // The journal's calls are timed as Postgres' are: the composition wraps whatever store it is given.
    expect(metrics).to.match(
      /^facilitator_journal_call_duration_seconds_count\{network="[^"]+",call="claim",outcome="\w+"\} [1-9]/m,
    )
    expect(existsSync(path.join(dataDir, 'postgres'))).to.equal(false)
  })
})
