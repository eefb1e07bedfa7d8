import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { spawnApp } from './support/app-process.js'
import { anvilRpc, isSettled, receiptOf } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { BATCHING_ON, PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

const accountOf = (key: Hex): Address => privateKeyToAddress(key).toLowerCase() as Address
const nonceOf = async (f: TestFacilitator, account: Address, block: 'latest' | 'pending') =>
  BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [account, block])) as string)

for (const batching of [false, true])
  describe(`a key pool: three signing keys in one replica (docs/ARCHITECTURE.md §5.8)${batching ? ', settling in batches' : ''}`, function () {
    this.timeout(180_000)
    const poolKeys = [generatePrivateKey(), generatePrivateKey()]
    let f: TestFacilitator
    let keys: Address[]
    before(async () => {
      f = await startTestFacilitator({
        ...(batching ? BATCHING_ON : {}),
        FACILITATOR_PRIVATE_KEYS: poolKeys.join(','),
        PROBE_REFRESH_MS: '200',
      })
      keys = [f.chain.facilitator.address, ...poolKeys.map(accountOf)]
    })
    after(() => f?.stop())

    it('/supported: the spec facilitator is the first key, x402 v2 signers lists every key', async () => {
      const body = (await (await fetch(`${f.base}/supported`)).json()) as {
        facilitator: string
        signers: Record<string, string[]>
      }
      expect(body.facilitator).to.equal(keys[0])
      expect(body.signers).to.deep.equal({ 'eip155:*': keys, [`eip155:${f.chain.chainId}`]: keys })
    })

    it('150 payments at once → every key used, each payment exactly once (balances, authorization state, one row each), each key’s nonces without a gap', async () => {
      const payers = f.chain.payers.map((p) => p.address)
      const before = await Promise.all(payers.map((p) => f.balanceOf(p)))
      const payeeBefore = await f.balanceOf(PAYEE)
      const startNonces = await Promise.all(keys.map((k) => nonceOf(f, k, 'latest')))
      const bodies = await Promise.all(
        Array.from({ length: 150 }, (_, i) => f.payment({ payer: i % payers.length, value: 7_000n })),
      )
      for (const b of bodies) b.paymentRequirements.amount = '7000'
      const answers = await Promise.all(bodies.map((b) => f.post('settle', b)))
      expect(
        answers.filter((a) => a.body.success !== true).map((a) => a.body),
        'failures',
      ).to.deep.equal([])

      for (const [i, p] of payers.entries()) {
        const count = BigInt(bodies.filter((_, j) => j % payers.length === i).length)
        expect(await f.balanceOf(p)).to.equal(before[i]! - count * 7_000n)
      }
      expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 150n * 7_000n)
      const rows = (await f.rows()).filter((r) => r.value === '7000')
      expect(rows).to.have.length(150)
      for (const body of bodies) {
        const { from, nonce } = body.paymentPayload.payload.authorization
        const mine = rows.filter((r) => r.payer === from && r.nonce === nonce)
        expect(mine, `${from}/${nonce}`).to.have.length(1)
        expect(isSettled(mine[0]!.state)).to.equal(true)
        const used = await anvilRpc(f.chain.rpcUrl, 'eth_call', [
          { to: f.asset, data: `0xe94a0102${from.slice(2).padStart(64, '0')}${nonce.slice(2)}` },
          'latest',
        ])
        expect(BigInt(used as string), 'authorizationState').to.equal(1n)
      }
      // Each row's transaction was sent by its owner, one of our keys; every key settled some.
      const owners = new Set<string>()
      for (const row of rows) {
        expect(keys).to.include(row.owner)
        owners.add(row.owner as string)
        const tx = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [row.tx_hash])) as { from: string }
        expect(tx.from.toLowerCase(), 'sent by its owner').to.equal(row.owner)
        expect((await receiptOf(f.chain.rpcUrl, row.tx_hash as string))?.status).to.equal('0x1')
      }
      expect([...owners].sort()).to.deep.equal([...keys].sort())
      // Gap-free: each key's mined count is its pending count (nothing held back), and it moved by its own
      // transactions.
      for (const [i, key] of keys.entries()) {
        const latest = await nonceOf(f, key, 'latest')
        expect(latest, `${key} pending`).to.equal(await nonceOf(f, key, 'pending'))
        expect(latest > startNonces[i]!, `${key} sent`).to.equal(true)
      }
    })

    it('/readyz checks every key: a key low on gas fails gasBalance naming that key; metrics carry one series per key', async () => {
      const low = keys[2]!
      const balance = (await anvilRpc(f.chain.rpcUrl, 'eth_getBalance', [low, 'latest'])) as string
      await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [low, '0x1'])
      try {
        // /readyz reads a snapshot refreshed in the background: the new balance shows at its next refresh.
        const [res, body] = await waitFor('/readyz naming gasBalance', async () => {
          const answer = await fetch(`${new URL(f.base).origin}/readyz`)
          const parsed = (await answer.json()) as {
            failing?: string[]
            checks: Record<string, { ok: boolean; detail: string }>
          }
          return parsed.failing?.includes('gasBalance') ? ([answer, parsed] as const) : undefined
        })
        expect(res.status).to.equal(503)
        expect(body.failing).to.deep.equal(['gasBalance'])
        expect(body.checks.gasBalance!.detail).to.match(new RegExp(`^${low}: 1 wei, below the floor of \\d+; `))
        for (const ok of keys.slice(0, 2)) expect(body.checks.gasBalance!.detail).to.include(`${ok}: `)
        expect(body.checks.replicaLock!.detail).to.equal(keys.map((k) => `${k}: held`).join('; '))
      } finally {
        await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [low, balance])
      }
      await waitFor('/readyz ready again', async () =>
        (await fetch(`${new URL(f.base).origin}/readyz`)).status === 200 ? true : undefined,
      )
      const metrics = await (await fetch(`${new URL(f.base).origin}/metrics`)).text()
      const network = `eip155:${f.chain.chainId}`
      for (const key of keys) {
        expect(metrics).to.include(`facilitator_replica_lock_held{network="${network}",account="${key}"} 1`)
        expect(metrics).to.match(
          new RegExp(`facilitator_gas_balance_wei\\{network="${network}",account="${key}"\\} [1-9]`),
        )
        expect(metrics).to.include(`facilitator_settles_in_flight{network="${network}",account="${key}"} 0`)
        expect(metrics).to.include(`facilitator_pending_transactions{network="${network}",account="${key}"} 0`)
      }
    })

    it('a second replica with one of our keys in its pool refuses to start, naming that key’s account', async () => {
      const own = generatePrivateKey()
      await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [accountOf(own), '0x56BC75E2D63100000'])
      const clash = await spawnApp({
        RPC_URL: f.chain.rpcUrl,
        ASSET_ADDRESS: f.asset,
        DATABASE_URL: f.db.connectionString,
        FACILITATOR_PRIVATE_KEY: '',
        FACILITATOR_PRIVATE_KEYS: `${own},${poolKeys[1]}`,
        CONFIRMATIONS: '0',
        ALLOW_OPEN: 'true',
        ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
        BATCHING: 'off',
      }).then(
        async (p) => {
          await p.kill('SIGKILL')
          return 'started'
        },
        (error: Error) => error.message,
      )
      expect(clash).to.include(`another replica already holds the Postgres advisory lock of facilitator ${keys[2]}`)
      // Ours are untouched: still settling.
      expect((await f.post('settle', await f.payment({ value: 1_000n }))).body.success).to.equal(true)
    })
  })
