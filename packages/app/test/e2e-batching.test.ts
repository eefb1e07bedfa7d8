import { batchSettlerAbi, eip3009TokenAbi } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { decodeFunctionData, encodeFunctionData, type Hex } from 'viem'
import { anvilRpc, pooledFrom, receiptOf, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { freshAddress, paymentFromPayer } from './support/payments-on-chain.js'
import { BATCHING_ON, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const pooled = (f: TestFacilitator) => pooledFrom(f.chain.rpcUrl, f.chain.facilitator.address)

describe('batch settlement through the settler (docs/ARCHITECTURE.md §5.7; real app, anvil, Postgres)', function () {
  this.timeout(180_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ ...BATCHING_ON, RECEIPT_TIMEOUT_SECONDS: '20' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('concurrent settles share settler transactions, each paid exactly once, each row naming its transaction and item', async () => {
    const payee = freshAddress()
    const bodies = await Promise.all(
      Array.from({ length: 30 }, (_, n) => paymentFromPayer(f, n % 3, payee, 1_000n + BigInt(n))),
    )
    const answers = await Promise.all(bodies.map((body) => f.post('settle', body)))
    expect(answers.map((a) => a.status)).to.deep.equal(Array(30).fill(200))
    expect(answers.every((a) => a.body.success === true)).to.equal(true)
    expect(await f.balanceOf(payee)).to.equal(
      bodies.reduce((sum, b) => sum + BigInt(b.paymentPayload.payload.authorization.value), 0n),
    )
    const hashes = new Set(answers.map((a) => a.body.txHash as string))
    expect(hashes.size, 'some payments went together').to.be.lessThan(30)
    const rows = (await f.rows()).filter((r) => r.payee === payee)
    expect(rows).to.have.length(30)
    expect(rows.every((r) => SETTLED_STATES.includes(r.state as string))).to.equal(true)
    const attempts = await f.db.knex('settlement_attempts').whereIn('tx_hash', [...hashes])
    for (const hash of hashes) {
      const tx = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [hash])) as { to: string }
      const ofTx = attempts.filter((a) => a.tx_hash === hash)
      if (tx.to.toLowerCase() === f.running.settler!.address) {
        // Items 0…n-1, each once; the raw bytes stored once for the transaction.
        expect(ofTx.map((a) => a.batch_index).sort((a, b) => a - b)).to.deep.equal(ofTx.map((_, i) => i))
        expect(ofTx.every((a) => a.raw === null)).to.equal(true)
        expect((await f.db.knex('settlement_batches').where({ tx_hash: hash })).length).to.equal(1)
      } else {
        expect(ofTx).to.have.length(1)
        expect(ofTx[0]!.batch_index).to.equal(null)
      }
    }
    for (const answer of answers) {
      const row = rows.find(
        (r) => r.tx_hash === answer.body.txHash && r.payer === (answer.body.payer as string).toLowerCase(),
      )
      expect(row, 'each answer names its own row').to.not.equal(undefined)
    }
    // A batch's hash is several payments': the lookup by hash says so; by payer and nonce, each is answered.
    const batchHash = [...hashes].find((h) => attempts.some((a) => a.tx_hash === h && a.batch_index !== null))!
    const byHash = await fetch(`${f.base}/settlements/${batchHash}`)
    expect(byHash.status).to.equal(409)
    expect(await byHash.json()).to.include({ errorCode: 'batch_transaction' })
    const one = rows.find((r) => r.tx_hash === batchHash)!
    const byKey = await fetch(`${f.base}/settlements?payer=${one.payer}&nonce=${one.nonce}`)
    expect(byKey.status).to.equal(200)
    expect(await byKey.json()).to.include({ txHash: batchHash, payer: one.payer })
  })

  it('a batch item front-run by a copy of its authorization: that settle answers success with the copy, the others with the batch; paid once', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payee = freshAddress()
    const bodies = await Promise.all(
      Array.from({ length: 4 }, (_, n) => paymentFromPayer(f, n % 3, payee, 7_000n + BigInt(n))),
    )
    // The first goes alone (nothing was being signed); the rest, arriving meanwhile, wait and go in one batch.
    const first = f.post('settle', bodies[0])
    await waitFor('the first transfer in the pool', async () => ((await pooled(f)).length >= 1 ? true : undefined))
    const rest = bodies.slice(1).map((body) => f.post('settle', body))
    const batch = await waitFor('a settler batch in the pool', async () =>
      (await pooled(f)).find((tx) => tx.to.toLowerCase() === f.running.settler!.address),
    )
    const decoded = decodeFunctionData({ abi: batchSettlerAbi, data: batch.input })
    if (decoded.functionName !== 'settle') throw new Error(`the batch calls ${decoded.functionName}`)
    const [items] = decoded.args
    expect(items.length).to.be.greaterThan(1)
    // A copier takes item 1 from the pool and sends it straight to the token with a far higher tip.
    const copied = items[1]!
    const victim = bodies.find(
      (b) => b.paymentPayload.payload.authorization.nonce.toLowerCase() === copied.nonce.toLowerCase(),
    )!
    const [copier] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as Address[]
    const copy = (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
      {
        from: copier,
        to: f.asset,
        data: encodeFunctionData({
          abi: eip3009TokenAbi,
          functionName: 'transferWithAuthorization',
          args: [
            copied.from,
            copied.to,
            copied.value,
            copied.validAfter,
            copied.validBefore,
            copied.nonce,
            copied.signature,
          ],
        }),
        gas: '0x30d40',
        maxFeePerGas: '0x174876e800',
        maxPriorityFeePerGas: '0x174876e800',
      },
    ])) as Hex
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    expect((await receiptOf(f.chain.rpcUrl, copy))?.status).to.equal('0x1')
    expect((await receiptOf(f.chain.rpcUrl, batch.hash))?.status, 'the batch itself succeeds').to.equal('0x1')
    const answers = await Promise.all([first, ...rest])
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200])
    expect(answers.every((a) => a.body.success === true)).to.equal(true)
    const victimAnswer = answers[bodies.indexOf(victim)]!
    expect(victimAnswer.body.txHash).to.equal(copy)
    const rows = (await f.rows()).filter((r) => r.payee === payee)
    expect(rows.find((r) => r.nonce === victim.paymentPayload.payload.authorization.nonce.toLowerCase())).to.include({
      tx_hash: copy,
    })
    expect(rows.filter((r) => r.tx_hash === batch.hash)).to.have.length(items.length - 1)
    expect(await f.balanceOf(payee)).to.equal(
      bodies.reduce((sum, b) => sum + BigInt(b.paymentPayload.payload.authorization.value), 0n),
    )
  })
})
