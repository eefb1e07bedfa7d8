import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { deploySettler, makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { settlesInFlight, spawnApp } from './support/app-process.js'
import { anvilRpc, isSettled, receiptOf } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE } from './support/test-facilitator.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

interface MinedTransaction {
  readonly hash: string
  readonly from: string
  readonly to: string | null
  readonly value: string
  readonly input: string
}

const blockNumber = async (rpcUrl: string): Promise<number> =>
  Number(BigInt((await anvilRpc(rpcUrl, 'eth_blockNumber', [])) as string))

/** Every mined transaction sent by `account`, from the chain's blocks above `after`. */
const transactionsFrom = async (rpcUrl: string, account: string, after: number): Promise<MinedTransaction[]> => {
  const latest = await blockNumber(rpcUrl)
  const blocks = await Promise.all(
    Array.from({ length: latest - after }, (_, n) =>
      anvilRpc(rpcUrl, 'eth_getBlockByNumber', [`0x${(after + 1 + n).toString(16)}`, true]),
    ),
  )
  return blocks
    .flatMap((block) => (block as { transactions: MinedTransaction[] }).transactions)
    .filter((tx) => tx.from.toLowerCase() === account.toLowerCase())
}

const CASES = [
  { batching: false, poolSize: 1 },
  { batching: true, poolSize: 1 },
  { batching: false, poolSize: 3 },
  { batching: true, poolSize: 3 },
]

for (const { batching, poolSize } of CASES)
  describe(`a crash (SIGKILL) with 50 settles in flight, then a restart${batching ? ', settling in batches (docs/ARCHITECTURE.md §5.7)' : ''}${poolSize > 1 ? `, ${poolSize} signing keys (§5.8)` : ''}`, function () {
    this.timeout(180_000)
    let chain: LocalChain
    let db: TestDatabase
    let settler: Address | undefined
    // The chain's facilitator key first, then the pool's others (FACILITATOR_PRIVATE_KEYS), each funded.
    const poolKeys = Array.from({ length: poolSize - 1 }, () => generatePrivateKey())
    let accounts: Address[]
    before(async () => {
      chain = await startLocalChain({ payers: 3, moreFacilitatorKeys: poolKeys })
      db = await createTestDatabase()
      accounts = [
        chain.facilitator.address,
        ...poolKeys.map((key) => privateKeyToAddress(key).toLowerCase() as Address),
      ]
      if (batching)
        settler = (
          await deploySettler({
            rpcUrl: chain.rpcUrl,
            token: chain.tokenAddress,
            deployerKey: chain.facilitator.privateKey,
            settlers: accounts,
            pollingIntervalMs: 20,
          })
        ).address
    })
    after(async () => {
      await db?.drop()
      await chain?.stop()
    })

    it('recovery reconciles every claimed and submitted row: nothing unfinished, nothing twice, every mined transaction recorded', async () => {
      const env = {
        RPC_URL: chain.rpcUrl,
        ASSET_ADDRESS: chain.tokenAddress,
        FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
        FACILITATOR_PRIVATE_KEYS: poolKeys.join(','),
        DATABASE_URL: db.connectionString,
        CONFIRMATIONS: '0',
        RECOVERY_INTERVAL_MS: '500',
        RECEIPT_TIMEOUT_SECONDS: '2',
        RPC_TIMEOUT_MS: '2000',
        ALLOW_OPEN: 'true',
        ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
        ...(settler === undefined ? {} : { SETTLER_ADDRESS: settler, BATCH_WINDOW_MS: '200' }),
      }
      const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress)
      const read = async <A>(te: () => Promise<E.Either<unknown, A>>) =>
        E.getOrElseW(() => {
          throw new Error('chain read failed')
        })(await te())
      const domain: Eip712Domain = await read(reader.domain)
      const balance = async (owner: Address) => (await read(reader.payerState(owner, `0x${'00'.repeat(32)}`))).balance
      const network = `eip155:${chain.chainId}`
      const bodies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const payer = chain.payers[i % chain.payers.length]!
          return signedPaymentBody({
            payerKey: payer.privateKey,
            payer: payer.address,
            payTo: PAYEE,
            value: 10_000n,
            network,
            domain,
          })
        }),
      )
      const balancesBefore = await Promise.all(chain.payers.map((p) => balance(p.address)))

      // The settler's deployment (the facilitator key's own transactions) is before this block.
      const startBlock = await blockNumber(chain.rpcUrl)
      const first = await spawnApp(env)
      const inFlight = settlesInFlight(first.url, bodies)
      const rowCount = async () =>
        Number((await db.knex('settlements').count<Array<{ count: string }>>('* as count'))[0]!.count)
      const batchCount = async () =>
        Number((await db.knex('settlement_batches').count<Array<{ count: string }>>('* as count'))[0]!.count)
      await waitFor('settlements under way', async () => ((await rowCount()) >= 10 ? true : undefined), 30_000, 5)
      // A pool: killed with settles in flight on several keys.
      const owners = async () =>
        Number((await db.knex('settlements').countDistinct<Array<{ count: string }>>('owner as count'))[0]!.count)
      if (poolSize > 1)
        await waitFor('rows of several keys', async () => ((await owners()) >= 2 ? true : undefined), 30_000, 5)
      // Batched: killed once a batch is recorded (it may be signed, broadcast, mined or not yet).
      if (batching)
        await waitFor('a batch recorded', async () => ((await batchCount()) >= 1 ? true : undefined), 30_000, 5)
      await first.kill('SIGKILL')
      const statuses = await Promise.all(inFlight)
      expect(statuses).to.include('connection lost')

      const second = await spawnApp(env)
      try {
        const rows = await waitFor(
          'every row finished',
          async () => {
            const all = (await db.knex('settlements').select('*')) as Array<Record<string, string>>
            return all.some((r) => r.state === 'claimed' || r.state === 'submitted') ? undefined : all
          },
          60_000,
          250,
        )

        let confirmedValue = new Map<string, bigint>()
        for (const body of bodies) {
          const { from, nonce } = body.paymentPayload.payload.authorization
          const used = (await read(reader.payerState(from, nonce))).authorizationUsed
          const row = rows.find((r) => r.payer === from && r.nonce === nonce)
          // Used on-chain exactly when the journal says confirmed; otherwise released or never claimed.
          const state = isSettled(row?.state) ? 'confirmed or final' : (row?.state ?? 'none')
          // The row's note says why it ended as it did (what recovery read of the chain).
          expect(state, `${from}/${nonce}: ${row?.error ?? 'no note'}`).to.equal(
            used ? 'confirmed or final' : row ? 'released' : 'none',
          )
          if (used) {
            const receipt = await receiptOf(chain.rpcUrl, row!.tx_hash!)
            expect(receipt?.status).to.equal('0x1')
            expect(BigInt(receipt!.blockNumber).toString()).to.equal(row!.block_number)
            confirmedValue = new Map(confirmedValue).set(from, (confirmedValue.get(from) ?? 0n) + 10_000n)
          }
        }
        for (const [i, payer] of chain.payers.entries()) {
          expect(await balance(payer.address)).to.equal(balancesBefore[i]! - (confirmedValue.get(payer.address) ?? 0n))
        }
        // Every transaction the facilitator got mined is one confirmed row's, or a zero-value transfer to itself that
        // filled a nonce the killed process signed but never recorded: nothing sent twice, no transfer unrecorded.
        const mine = (
          await Promise.all(accounts.map((account) => transactionsFrom(chain.rpcUrl, account, startBlock)))
        ).flat()
        const transfers = mine.filter(
          (tx) => tx.to === chain.tokenAddress.toLowerCase() || (settler !== undefined && tx.to === settler),
        )
        const fillers = mine.filter(
          (tx) => tx.to === tx.from.toLowerCase() && BigInt(tx.value) === 0n && tx.input === '0x',
        )
        expect(transfers.length + fillers.length, 'only transfers and nonce fillers').to.equal(mine.length)
        // A batch is one transaction for all its rows.
        expect(transfers.map((tx) => tx.hash).sort()).to.deep.equal(
          [...new Set(rows.filter((r) => isSettled(r.state)).map((r) => r.tx_hash))].sort(),
        )
        if (batching)
          expect(
            transfers.some((tx) => tx.to === settler),
            'some payments were batched',
          ).to.equal(true)
        // Each row's transaction was sent by its owner, and no key is left with a transaction held back by a gap.
        for (const row of rows.filter((r) => isSettled(r.state)))
          expect(mine.find((tx) => tx.hash === row.tx_hash)?.from.toLowerCase(), 'sent by its owner').to.equal(
            row.owner,
          )
        for (const account of accounts) {
          const count = async (block: string) =>
            (await anvilRpc(chain.rpcUrl, 'eth_getTransactionCount', [account, block])) as string
          expect(await count('latest'), `${account}: every nonce mined`).to.equal(await count('pending'))
        }

        // The authorizations that were released can be settled now, once.
        const retry = bodies.find(
          (b) => !rows.some((r) => r.nonce === b.paymentPayload.payload.authorization.nonce && isSettled(r.state)),
        )
        if (retry) {
          const res = await fetch(`${second.url}/settle`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(retry),
          })
          expect(((await res.json()) as { success: boolean }).success).to.equal(true)
        }
      } finally {
        await second.kill()
      }
    })
  })
