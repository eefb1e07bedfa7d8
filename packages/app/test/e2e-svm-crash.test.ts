import { expect } from 'chai'
import { address } from '@solana/kit'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { settlesInFlight, spawnApp } from './support/app-process.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'
import { postJson } from './support/json-client.js'
import { solanaPayments, startLocalSolana, type LocalSolana } from './support/svm-facilitator.js'
import { waitFor } from './support/wait-for.js'

/**
 * A Solana settle killed (SIGKILL) after its transaction was sent and before its confirmation was recorded: the restarted
 * process finds it by signature and confirms the row once; a retry moves nothing (issue 40).
 */
describe('a Solana settle killed between send and record, then a restart (app processes, Postgres, the local SVM)', function () {
  this.timeout(180_000)
  let chain: LocalChain
  let db: TestDatabase
  let solana: LocalSolana
  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    db = await createTestDatabase()
    solana = await startLocalSolana()
  })
  after(async () => {
    await solana?.stop()
    await db?.drop()
    await chain?.stop()
  })

  it('recovery finds the transaction by signature: the row confirmed once, the payee paid once, a retry answered without a send', async () => {
    const env = {
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: chain.tokenAddress,
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: db.connectionString,
      ALLOW_OPEN: 'true',
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      RECOVERY_INTERVAL_MS: '500',
      RECEIPT_TIMEOUT_SECONDS: '30',
      ...solana.env,
    }
    const first = await spawnApp(env)
    // No slot passes from here: the transaction runs when sent, but is never `confirmed` while the process waits.
    solana.svm.stop()
    const payments = solanaPayments(solana)
    const payer = await solana.svm.fundedAccount(5_000_000n)
    const payTo = await payments.payee()
    const required = payments.requirements(payTo)
    const payload = await payments.officialPayment(payer, required)
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: required }
    const [inFlight] = settlesInFlight(first.url, [body])
    const row = await waitFor(
      'the row submitted',
      async () => {
        const rows = (await db.knex('settlements').where({ payer: payer.address })) as Array<Record<string, unknown>>
        return rows[0]?.state === 'submitted' && solana.svm.statusOf(String(rows[0].tx_hash)) !== undefined
          ? rows[0]
          : undefined
      },
      60_000,
    )
    await first.kill('SIGKILL')
    expect(await inFlight).to.equal('connection lost')
    expect(await solana.svm.tokenBalanceOf(address(payTo))).to.equal(1_000_000n)

    solana.svm.run(100)
    const second = await spawnApp(env)
    try {
      const recovered = await waitFor(
        'the row confirmed',
        async () => {
          const rows = (await db.knex('settlements').where({ payer: payer.address })) as Array<Record<string, unknown>>
          return rows[0]?.state === 'confirmed' || rows[0]?.state === 'final' ? rows[0] : undefined
        },
        60_000,
      )
      expect(recovered.tx_hash).to.equal(row.tx_hash)
      const retry = await postJson(`${second.url}/settle`, body)
      expect(retry.status).to.equal(200)
      expect(retry.body).to.deep.include({ success: true, transaction: row.tx_hash })
      expect(await solana.svm.tokenBalanceOf(address(payTo))).to.equal(1_000_000n)
      expect(await solana.svm.tokenBalanceOf(payer.address)).to.equal(4_000_000n)
    } finally {
      await second.kill()
    }
  })
})
