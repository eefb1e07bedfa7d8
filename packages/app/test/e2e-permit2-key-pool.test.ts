import { expect } from 'chai'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { isSettled } from './support/chain-control.js'
import { senderOf } from './support/permit2-chain.js'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'

const accountOf = (key: Hex): Address => privateKeyToAddress(key).toLowerCase() as Address

/**
 * A pool of three signing keys (FACILITATOR_PRIVATE_KEYS, docs/ARCHITECTURE.md §5.8) and Permit2 (issue 26): an
 * `upto` payment is sent by the key its witness names (the only sender x402's upto proxy accepts), an `exact` one by
 * any key. Payloads made by @x402/evm 2.27.
 */
describe('e2e: Permit2 with a pool of three keys', function () {
  this.timeout(180_000)
  const poolKeys = [generatePrivateKey(), generatePrivateKey()]
  let f: Permit2Facilitator
  let keys: Address[]
  before(async () => {
    f = await startPermit2Facilitator({ FACILITATOR_PRIVATE_KEYS: poolKeys.join(',') })
    keys = [f.chain.facilitator.address, ...poolKeys.map(accountOf)]
  })
  after(() => f?.stop())

  const rowOf = async (txHash: unknown) => (await f.rows()).find((r) => r.tx_hash === txHash)

  it('upto payments naming each key, settled at once: each sent by the key its witness names, at the amount asked', async () => {
    const payments = await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const key = keys[i % keys.length]!
        const maximum = f.requirements('upto', 2_000_000n, { facilitatorAddress: key })
        const payload = await f.pay(i % 2, maximum)
        const amount = 500_000n + BigInt(i)
        return { key, amount, body: f.body(payload, { ...maximum, amount: amount.toString() }) }
      }),
    )
    const payeeBefore = await f.tokenBalance(PAYEE)
    const answers = await Promise.all(payments.map((p) => f.post('settle', p.body)))
    expect(answers.filter((a) => a.body.success !== true).map((a) => a.body)).to.deep.equal([])
    for (const [i, { key, amount }] of payments.entries()) {
      const tx = answers[i]!.body.transaction
      expect(await senderOf(f.chain.rpcUrl, tx as string), `payment ${i}`).to.equal(key)
      const row = await rowOf(tx)
      expect(row, `payment ${i}`).to.deep.include({ owner: key, value: amount.toString() })
      expect(isSettled(row!.state)).to.equal(true)
    }
    const total = payments.reduce((sum, p) => sum + p.amount, 0n)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + total)
  })

  it('exact payments at once: each settled once by one of the keys', async () => {
    const payments = await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const accepted = f.requirements('exact', 30_000n + BigInt(i))
        return f.body(await f.pay(i % 2, accepted), accepted)
      }),
    )
    const payeeBefore = await f.tokenBalance(PAYEE)
    const answers = await Promise.all(payments.map((body) => f.post('settle', body)))
    expect(answers.filter((a) => a.body.success !== true).map((a) => a.body)).to.deep.equal([])
    const transactions = answers.map((a) => a.body.transaction as string)
    expect(new Set(transactions).size).to.equal(payments.length)
    for (const tx of transactions) {
      const sender = await senderOf(f.chain.rpcUrl, tx)
      expect(keys).to.include(sender)
      expect((await rowOf(tx))?.owner).to.equal(sender)
    }
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 9n * 30_000n + 36n)
  })
})
