import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import { FAKE_TOKEN } from '@x402-facilitator/domain/fake-chain'
import { FakeJournal } from '@x402-facilitator/domain/fake-journal'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { pino } from 'pino'
import { loadConfig } from '../src/config.js'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { startFacilitator, type RunningFacilitator } from '../src/start-facilitator.js'
import { makeFakeChain } from './support/fake-chain.js'
import { openFakeStore } from './support/fake-store.js'
import { PAYEE } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'
import { getJson, postJson } from './support/json-client.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

// Anvil's well-known development keys: nothing here runs a chain, they only sign.
const FACILITATOR_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcaf784d7bf4f2ff80'
const PAYER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const PAYER: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

/**
 * docs/ARCHITECTURE.md §1: swapping the store or the chain client is replacing one module. The whole app, composed as
 * in production, with the in-memory journal in place of Postgres and the domain's chain fakes in place of the JSON-RPC
 * client: no anvil, no Postgres, and not one request to the configured node.
 */
describe('the app composed with a fake store and a fake chain (each swapped in one module)', function () {
  this.timeout(60_000)
  let running: RunningFacilitator
  const journal = new FakeJournal(() => new Date())
  const chain = makeFakeChain()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'x402-fake-composition-'))

  before(async () => {
    const config = E.getOrElseW((line: string) => {
      throw new Error(line)
    })(
      loadConfig({
        // A port nothing listens on: the fake chain never calls it.
        RPC_URL: 'http://127.0.0.1:9',
        ASSET_ADDRESS: FAKE_TOKEN,
        FACILITATOR_PRIVATE_KEY: FACILITATOR_KEY,
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'silent',
        CONFIRMATIONS: '0',
        HEAD_POLL_MS: '50',
        RATE_LIMIT: '0',
        ALLOW_OPEN: 'true',
        ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      }),
    )
    running = await startFacilitator({
      config,
      logger: pino({ level: 'silent' }),
      store: openFakeStore(journal),
      chain: chain.open,
    })
  })
  after(async () => {
    await running?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const base = () => `${running.url}/api/facilitator`
  const post = (endpoint: 'verify' | 'settle', body: unknown) => postJson(`${base()}/${endpoint}`, body)
  const get = getJson
  const payment = async (value: bigint) => {
    const domain = E.getOrElseW((): Eip712Domain => {
      throw new Error('no token domain')
    })(await chain.token.domain())
    const network = running.policy.network
    return signedPaymentBody({ payerKey: PAYER_KEY, payer: PAYER, payTo: PAYEE, value, network, domain })
  }

  it('answers /supported with the fake token and the facilitator key', async () => {
    const supported = await get(`${base()}/supported`)
    expect(supported.status).to.equal(200)
    expect(JSON.stringify(supported.body)).to.include('eip155:31337')
    expect(JSON.stringify(supported.body).toLowerCase()).to.include(running.facilitators[0]!)
  })

  it("refuses a payment whose signature is not the payer's, and settles nothing", async () => {
    const body = await payment(1_000_000n)
    const { signature } = body.paymentPayload.payload
    const forged = {
      ...body.paymentPayload.payload,
      signature: `${signature.slice(0, -4)}${signature.endsWith('1b') ? 'ff1c' : 'ff1b'}`,
    }
    const answer = await post('verify', { ...body, paymentPayload: { ...body.paymentPayload, payload: forged } })
    expect(answer.status).to.equal(200)
    expect(answer.body).to.include({ valid: false })
    expect(chain.submitters[0]!.submitter.broadcasts).to.have.length(0)
  })

  it('verifies, settles once, looks up and probes through the fakes; the node is never called', async () => {
    const body = await payment(1_000_000n)
    expect((await post('verify', body)).body).to.include({ valid: true })
    const settled = await post('settle', body)
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: true })
    const txHash = settled.body.txHash as string
    // The transaction is the fake submitter's, the row the fake journal's: the settle went through both fakes.
    const { broadcasts } = chain.submitters[0]!.submitter
    expect(broadcasts.map((sent) => sent.txHash)).to.deep.equal([txHash])
    expect([...journal.rows.values()].map((row) => [row.payer, row.txHash])).to.deep.equal([[PAYER, txHash]])

    // CONFIRMATIONS=0: final at the finality watcher's next head, read from the fake chain's blocks.
    const byHash = await waitFor('the settlement final', async () => {
      const found = await get(`${base()}/settlements/${txHash}`)
      return found.body.state === 'final' ? found : undefined
    })
    expect(byHash.status).to.equal(200)
    expect(byHash.body).to.include({ payer: body.paymentPayload.payload.authorization.from, txHash, value: '1000000' })
    const { from, nonce } = body.paymentPayload.payload.authorization
    // Confirmations count from the head each lookup reads: the fake chain's head may have moved between the two.
    const { confirmations, ...row } = byHash.body
    const byNonce = (await get(`${base()}/settlements?payer=${from}&nonce=${nonce}`)).body
    expect(byNonce).to.deep.include(row)
    expect(byNonce.confirmations).to.be.at.least(confirmations as number)

    // Replayed: refused with the one transaction, never a second broadcast.
    const replayed = await post('settle', body)
    expect(replayed.body).to.include({ success: false, errorCode: 'authorization_already_used', txHash })
    expect(broadcasts).to.have.length(1)

    const ready = await get(`${running.url}/readyz`)
    expect(ready.status).to.equal(200)
    expect(ready.body.checks).to.deep.include({ replicaLock: { ok: true, detail: 'held' } })
    const metrics = await (await fetch(`${running.url}/metrics`)).text()
    // The node is never called: no network's request count above 0.
    expect(metrics).not.to.match(/^facilitator_rpc_requests_total\{[^}]*\} [1-9]/m)
    expect(metrics).to.match(
      /^facilitator_chain_call_duration_seconds_count\{network="[^"]+",call="send",outcome="success"\} 1$/m,
    )
  })
})
