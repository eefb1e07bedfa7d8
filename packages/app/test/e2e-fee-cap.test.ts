import { expect } from 'chai'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { spawnApp } from './support/app-process.js'
import { anvilRpc, isSettled, receiptOf, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

// Every unmined attempt is due for a replacement at the first pass that sees its row (docs/ARCHITECTURE.md §5.4).
// Recovery leaves a row to its settle for the receipt timeout plus RPC_TIMEOUT_MS (use-cases-module.ts): at the
// default 10 s every replacement here waited 11 s.
const FAST = {
  RECOVERY_INTERVAL_MS: '300',
  REPLACE_AFTER_MS: '100',
  RECEIPT_TIMEOUT_SECONDS: '1',
  RPC_TIMEOUT_MS: '2000',
}

type Row = Record<string, string>
const attemptsOf = async (db: TestDatabase, settlementId: string): Promise<Row[]> =>
  (await db.knex('settlement_attempts').where({ settlement_id: settlementId }).orderBy('id')) as Row[]
const rowWith = async (db: TestDatabase, txHash: unknown): Promise<Row | undefined> =>
  ((await db.knex('settlements').select('*')) as Row[]).find((r) => r.tx_hash === txHash)
const rowOfAuthorization = async (db: TestDatabase, nonce: string): Promise<Row> =>
  ((await db.knex('settlements').where({ nonce }).first()) as Row | undefined) ?? expect.fail(`no row for ${nonce}`)
const inPool = async (rpcUrl: string, txHash: string) =>
  (await anvilRpc(rpcUrl, 'eth_getTransactionByHash', [txHash])) !== null ? true : undefined
const latestBaseFee = async (rpcUrl: string) =>
  BigInt(
    ((await anvilRpc(rpcUrl, 'eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string }).baseFeePerGas,
  )

/** The outcome counts of every recovery pass the app logged. */
const recoveryPasses = (output: string): Array<Record<string, number>> =>
  output
    .split('\n')
    .filter((line) => line.includes('"recovery"'))
    .map((line) => (JSON.parse(line) as { recovery: { outcomes: Record<string, number> } }).recovery.outcomes)

describe('fee cap: a dropped transaction whose fees cannot rise any more (the production entry point, anvil, Postgres)', function () {
  this.timeout(120_000)
  let chain: LocalChain
  let db: TestDatabase
  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    db = await createTestDatabase()
  })
  after(async () => {
    await db?.drop()
    await chain?.stop()
  })

  it('is sent again from its stored bytes and mined; no recovery pass fails, no new attempt is invented', async () => {
    // The operator's cap sits below the node's estimate (twice the base fee plus the tip): every attempt is at the cap.
    const cap = (await latestBaseFee(chain.rpcUrl)) * 2n
    const app = await spawnApp({
      ...FAST,
      RPC_URL: chain.rpcUrl,
      ALLOW_OPEN: 'true',
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      ASSET_ADDRESS: chain.tokenAddress,
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: db.connectionString,
      CONFIRMATIONS: '0',
      MAX_FEE_PER_GAS: cap.toString(),
      LOG_LEVEL: 'info',
    })
    try {
      const domain = await makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress).domain()
      if (domain._tag === 'Left') throw new Error('no token domain')
      const payer = chain.payers[0]!
      const network = `eip155:${chain.chainId}`
      const body = await signedPaymentBody({
        payerKey: payer.privateKey,
        payer: payer.address,
        payTo: PAYEE,
        value: 1_000n,
        network,
        domain: domain.right,
      })
      body.paymentRequirements.maxTimeoutSeconds = 1
      await anvilRpc(chain.rpcUrl, 'evm_setAutomine', [false])
      const res = await fetch(`${app.url}/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const answer = (await res.json()) as { txHash: string }
      expect(res.status).to.equal(202)
      await anvilRpc(chain.rpcUrl, 'anvil_dropTransaction', [answer.txHash])

      await waitFor('the dropped transaction re-sent', () => inPool(chain.rpcUrl, answer.txHash))
      await anvilRpc(chain.rpcUrl, 'evm_mine')
      const row = await waitFor('the row confirmed', async () => {
        const r = await rowWith(db, answer.txHash)
        return isSettled(r?.state) ? r : undefined
      })
      expect((await receiptOf(chain.rpcUrl, answer.txHash))?.status).to.equal('0x1')
      const attempts = await attemptsOf(db, row.id!)
      expect(attempts.map((a) => a.tx_hash)).to.deep.equal([answer.txHash])
      expect(BigInt(attempts[0]!.max_fee_per_gas!)).to.equal(cap)
      // The service writes its log a second at a time: wait for the pass that re-sent it to show.
      await waitFor('a logged pass that re-sent it', async () =>
        recoveryPasses(app.output()).some((outcomes) => (outcomes.rebroadcast ?? 0) > 0) ? true : undefined,
      )
      const passes = recoveryPasses(app.output())
      expect(passes.filter((outcomes) => outcomes.failed !== undefined)).to.deep.equal([])
    } finally {
      await anvilRpc(chain.rpcUrl, 'evm_setAutomine', [true])
      await app.kill()
    }
  })
})

describe('fee cap: no MAX_FEE_PER_GAS, fees that move after start-up; a claim taken back (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator(FAST)
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('base fee ten times what the first attempt offered: a replacement outbids it and is mined', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payer = f.chain.payers[1]!.address
    const before = await f.balanceOf(payer)
    const body = await f.payment({ payer: 1 })
    body.paymentRequirements.maxTimeoutSeconds = 1
    const res = await f.post('settle', body)
    expect(res.status).to.equal(202)
    const row = await rowOfAuthorization(f.db, body.paymentPayload.payload.authorization.nonce)
    const [first] = await attemptsOf(f.db, row.id!)
    // Blocks at ten times the first attempt's fee cap, which it can never pay.
    const risen = BigInt(first!.max_fee_per_gas!) * 10n
    const mineAtRisenFee = async () => {
      await anvilRpc(f.chain.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${risen.toString(16)}`])
      await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    }
    await mineAtRisenFee()
    expect(await receiptOf(f.chain.rpcUrl, first!.tx_hash!)).to.equal(null)

    const outbidding = await waitFor('a replacement that pays the risen base fee, in the pool', async () => {
      const found = (await attemptsOf(f.db, row.id!)).find((a) => BigInt(a.max_fee_per_gas!) >= risen)
      return found && (await inPool(f.chain.rpcUrl, found.tx_hash!)) ? found : undefined
    })
    expect(outbidding.account_nonce).to.equal(first!.account_nonce)
    await mineAtRisenFee()
    const settled = await waitFor('the row confirmed', async () => {
      const r = (await f.rows()).find((x) => x.id === row.id)
      return isSettled(r?.state) ? r : undefined
    })
    expect((await receiptOf(f.chain.rpcUrl, settled.tx_hash as string))?.status).to.equal('0x1')
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
  })

  it('an authorization released after its key could not pay for its transaction, then settled again on an idle chain: settles, no 503', async () => {
    const facilitator = f.chain.facilitator.address
    const balance = (await anvilRpc(f.chain.rpcUrl, 'eth_getBalance', [facilitator, 'latest'])) as string
    const body = await f.payment({ payer: 2 })
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [facilitator, '0x0'])
    const refused = await f.post('settle', body)
    await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [facilitator, balance])
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503)
    // Refused before it left: the key's balance is checked against the transaction's gas limit × max fee (§5.8).
    expect(String(refused.body.error)).to.match(/holds 0 wei, less than its next transaction's gas limit × max fee/)
    const released = (await f.rows()).find((r) => r.nonce === body.paymentPayload.payload.authorization.nonce)!
    expect(released.state).to.equal('released')

    // Nothing of the first claim was stored (its transaction never left): the second claim's attempt is the only one.
    const again = await f.post('settle', body)
    expect(again.status, JSON.stringify(again.body)).to.equal(200)
    expect(again.body).to.include({ success: true })
    const row = (await f.rows()).find((r) => r.id === released.id)!
    expect(row).to.include({ generation: 2, tx_hash: again.body.txHash })
    expect(row?.state).to.be.oneOf(SETTLED_STATES)
    const attempts = await attemptsOf(f.db, String(row.id))
    expect(attempts.map((a) => [a.generation, a.tx_hash])).to.deep.equal([[2, again.body.txHash]])
  })
})
