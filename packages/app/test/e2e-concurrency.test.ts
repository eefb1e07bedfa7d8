import { deploySettler } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { spawnApp } from './support/app-process.js'
import { anvilRpc, isSettled, receiptOf } from './support/chain-control.js'
import { BATCHING_ON, PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

/** Runs `tasks` with at most `limit` in flight. */
const withConcurrency = async <A>(limit: number, tasks: ReadonlyArray<() => Promise<A>>): Promise<A[]> => {
  const results: A[] = new Array(tasks.length)
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < tasks.length) {
        const i = next++
        results[i] = await tasks[i]!()
      }
    }),
  )
  return results
}

for (const batching of [false, true])
  describe(`exactly once under concurrency (real app, anvil, Postgres)${batching ? ', settling in batches (docs/ARCHITECTURE.md §5.7)' : ''}`, function () {
    this.timeout(180_000)
    let f: TestFacilitator
    before(async () => {
      f = await startTestFacilitator(batching ? BATCHING_ON : {})
    })
    after(() => f?.stop())

    it('the same authorization sent 10 times at once → one on-chain transfer, nine refusals', async () => {
      const payer = f.chain.payers[0]!.address
      const before = await f.balanceOf(payer)
      const body = await f.payment({ value: 3_000_000n })
      body.paymentRequirements.amount = '3000000'
      const answers = await Promise.all(Array.from({ length: 10 }, () => f.post('settle', body)))
      const won = answers.filter((a) => a.body.success === true)
      const refused = answers.filter((a) => a.body.errorCode === 'authorization_already_used')
      expect(won).to.have.length(1)
      expect(refused).to.have.length(9)
      for (const r of refused) expect(r.status).to.equal(200)
      const winner = won[0]!.body.txHash
      // Whoever learnt of the winner's transaction names it.
      for (const r of refused) if (r.body.txHash !== undefined) expect(r.body.txHash).to.equal(winner)
      expect(await f.balanceOf(payer)).to.equal(before - 3_000_000n)
      expect((await f.rows()).filter((row) => row.payer === payer && row.value === '3000000')).to.have.length(1)
    })

    it('200 distinct payments at concurrency 32 through one key → all settled, receipts successful, balances exact', async () => {
      const payers = f.chain.payers.map((p) => p.address)
      const before = await Promise.all(payers.map((p) => f.balanceOf(p)))
      const payeeBefore = await f.balanceOf(PAYEE)
      const bodies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => f.payment({ payer: i % payers.length, value: 10_000n })),
      )
      for (const b of bodies) b.paymentRequirements.amount = '10000'
      const first = await withConcurrency(
        32,
        bodies.map((b) => () => f.post('settle', b)),
      )
      // A busy machine may mine later than the receipt wait: a 202 settlement_pending is then the right answer, and the
      // caller's same request again (as the official resource server sends it) gets the payment's one success.
      const answers = await Promise.all(
        first.map((a, i) => (a.status === 202 ? f.post('settle', bodies[i]) : Promise.resolve(a))),
      )
      const failures = answers.filter((a) => a.body.success !== true)
      expect(
        failures.map((a) => a.body),
        'failures',
      ).to.deep.equal([])
      const hashes = new Set(answers.map((a) => a.body.txHash as string))
      // One transaction a payment, or (batched) fewer, shared.
      if (batching) expect(hashes.size).to.be.lessThan(200)
      else expect(hashes.size).to.equal(200)
      for (const hash of hashes) expect((await receiptOf(f.chain.rpcUrl, hash))?.status).to.equal('0x1')
      for (const [i, p] of payers.entries()) {
        const count = BigInt(bodies.filter((_, j) => j % payers.length === i).length)
        expect(await f.balanceOf(p)).to.equal(before[i]! - count * 10_000n)
      }
      expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 200n * 10_000n)
      const confirmed = (await f.rows()).filter((r) => r.value === '10000' && isSettled(r.state))
      expect(confirmed).to.have.length(200)
    })

    it('two app processes with their own keys on one Postgres and one chain: one transfer; a second process with a taken key refuses to start', async () => {
      const [firstKey, secondKey] = [generatePrivateKey(), generatePrivateKey()]
      for (const key of [firstKey, secondKey])
        await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [privateKeyToAddress(key), '0x56BC75E2D63100000'])
      // Batched: one settler both keys may call.
      const settlerKeys = [firstKey, secondKey].map((key) => privateKeyToAddress(key).toLowerCase() as Address)
      const settler = batching
        ? (
            await deploySettler({
              rpcUrl: f.chain.rpcUrl,
              token: f.chain.tokenAddress,
              deployerKey: f.chain.facilitator.privateKey,
              settlers: settlerKeys,
              pollingIntervalMs: 20,
            })
          ).address
        : undefined
      const env = (key: string) => ({
        RPC_URL: f.chain.rpcUrl,
        ASSET_ADDRESS: f.chain.tokenAddress,
        DATABASE_URL: f.db.connectionString,
        FACILITATOR_PRIVATE_KEY: key,
        CONFIRMATIONS: '0',
        ALLOW_OPEN: 'true',
        ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
        ...(settler === undefined ? {} : { SETTLER_ADDRESS: settler }),
      })
      const [a, b] = await Promise.all([spawnApp(env(firstKey)), spawnApp(env(secondKey))])
      try {
        const payer = f.chain.payers[1]!.address
        const before = await f.balanceOf(payer)
        const body = await f.payment({ payer: 1, value: 2_000_000n })
        body.paymentRequirements.amount = '2000000'
        const send = (url: string) =>
          fetch(`${url}/settle`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then(async (r) => (await r.json()) as Record<string, unknown>)
        const answers = await Promise.all([a.url, b.url, a.url, b.url].map(send))
        expect(answers.filter((x) => x.success === true)).to.have.length(1)
        expect(answers.filter((x) => x.errorCode === 'authorization_already_used')).to.have.length(3)
        expect(await f.balanceOf(payer)).to.equal(before - 2_000_000n)

        const clash = await spawnApp(env(secondKey)).then(
          async (p) => {
            await p.kill('SIGKILL')
            return 'started'
          },
          (error: Error) => error.message,
        )
        expect(clash).to.match(/another replica already holds the Postgres advisory lock/)
      } finally {
        await Promise.all([a.kill(), b.kill()])
      }
    })
  })
