import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { spawnApp } from './support/app-process.js'
import { anvilRpc } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { canonicalReceipt, reorgTo, snapshot } from './support/reorg.js'
import { PAYEE } from './support/test-facilitator.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

/** docs/ARCHITECTURE.md §5.6: rows a killed process left confirmed but not final are followed by the next one. */
describe('a crash (SIGKILL) with rows confirmed but not final, a reorg while down, then a restart', function () {
  this.timeout(180_000)
  let chain: LocalChain
  let db: TestDatabase
  before(async () => {
    chain = await startLocalChain({ payers: 2 })
    db = await createTestDatabase()
  })
  after(async () => {
    await db?.drop()
    await chain?.stop()
  })

  it('the row whose block stayed becomes final; the one whose block was replaced is on the chain again, paid once', async () => {
    const env = {
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: chain.tokenAddress,
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: db.connectionString,
      CONFIRMATIONS: '3',
      ALLOW_OPEN: 'true',
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
    }
    const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress)
    const read = async <A>(te: () => Promise<E.Either<unknown, A>>) =>
      E.getOrElseW(() => {
        throw new Error('chain read failed')
      })(await te())
    const domain = await read(reader.domain)
    const paid = async () => (await read(reader.payerState(PAYEE, `0x${'00'.repeat(32)}`))).balance
    const [kept, replaced] = await Promise.all(
      chain.payers.map((payer, i) =>
        signedPaymentBody({
          payerKey: payer.privateKey,
          payer: payer.address,
          payTo: PAYEE,
          value: 40_000n + BigInt(i),
          network: `eip155:${chain.chainId}`,
          domain,
        }),
      ),
    )
    const rowOf = async (body: typeof kept) => {
      const { from, nonce } = body!.paymentPayload.payload.authorization
      return (await db.knex('settlements').where({ payer: from.toLowerCase(), nonce: nonce.toLowerCase() }).first()) as
        Record<string, string> | undefined
    }
    const paidBefore = await paid()

    const first = await spawnApp(env)
    const settle = async (url: string, body: unknown) =>
      (
        await fetch(`${url}/settle`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status
    expect(await settle(first.url, kept)).to.equal(200)
    const before = await snapshot(chain.rpcUrl)
    expect(await settle(first.url, replaced)).to.equal(200)
    expect((await rowOf(kept))?.state).to.equal('confirmed')
    expect((await rowOf(replaced))?.state).to.equal('confirmed')
    await first.kill('SIGKILL')

    // While no facilitator runs: the second transfer's block is replaced; the first's gets three blocks on top.
    await reorgTo(chain.rpcUrl, before)
    expect(await canonicalReceipt(chain.rpcUrl, (await rowOf(replaced))!.tx_hash!)).to.equal(undefined)

    const second = await spawnApp(env)
    try {
      await waitFor('the kept row final', async () => ((await rowOf(kept))?.state === 'final' ? true : undefined))
      const again = await waitFor(
        'the replaced one on the chain again, journalled with its block',
        async () => {
          const row = await rowOf(replaced)
          const receipt = row?.tx_hash ? await canonicalReceipt(chain.rpcUrl, row.tx_hash) : undefined
          return row?.state === 'confirmed' && receipt?.status === '0x1' && receipt.blockHash === row.block_hash
            ? row
            : undefined
        },
        30_000,
      )
      expect(await paid()).to.equal(paidBefore + 80_001n)
      for (let i = 0; i < 3; i++) await anvilRpc(chain.rpcUrl, 'evm_mine')
      await waitFor('the re-finished row final', async () =>
        (await rowOf(replaced))?.state === 'final' ? true : undefined,
      )
      expect((await rowOf(replaced))?.tx_hash).to.equal(again.tx_hash)
    } finally {
      await second.kill()
    }
  })
})
