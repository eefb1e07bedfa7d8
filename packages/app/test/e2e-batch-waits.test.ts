import { expect } from 'chai'
import { anvilRpc, isSettled, pooledFrom } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { freshAddress, paymentFromPayer } from './support/payments-on-chain.js'
import { BATCHING_ON } from './support/test-facilitator.js'

describe("each payment of a batch waits as its own request allows (docs/ARCHITECTURE.md §5.4, §5.7; real app, Circle's USDC, settler, Postgres)", function () {
  this.timeout(180_000)
  let f: CircleUsdcFacilitator
  before(async () => {
    f = await startCircleUsdcFacilitator({ ...BATCHING_ON, RECEIPT_TIMEOUT_SECONDS: '60' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('one payment with maxTimeoutSeconds 1 among 30 in flight together: it answers 202, the other 29 wait for the block and answer success', async () => {
    const pooled = () => pooledFrom(f.chain.rpcUrl, f.chain.facilitator.address)
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payee = freshAddress()
    // A transaction of ours waiting for its block: the next settles gather into a settler batch behind it.
    const first = f.post('settle', await paymentFromPayer(f, 0, payee, 500n))
    await waitFor('the first settle broadcast', async () => ((await pooled()).length === 1 ? true : undefined))
    const bodies = await Promise.all(
      Array.from({ length: 30 }, (_, n) => paymentFromPayer(f, n % 3, payee, 1_000n + BigInt(n))),
    )
    const hasty = 15
    bodies[hasty]!.paymentRequirements.maxTimeoutSeconds = 1
    const answers = bodies.map((body) => f.post('settle', body))
    // The hasty request gives up first, while no block has come: only then is the block mined.
    const hastyAnswer = await answers[hasty]!
    expect(hastyAnswer.status).to.equal(202)
    expect(hastyAnswer.body).to.include({ errorCode: 'settlement_pending' })
    const batches = await pooled()
    expect(batches.length, 'the 30 went in settler batches behind the first transfer').to.be.within(2, 4)
    await anvilRpc(f.chain.rpcUrl, 'evm_mine', [])
    const others = await Promise.all(answers.filter((_, n) => n !== hasty))
    expect(others.map((a) => a.status)).to.deep.equal(Array(29).fill(200))
    expect(others.every((a) => a.body.success === true)).to.equal(true)
    expect((await first).body.success).to.equal(true)
    // The hasty one was paid in the same block; its row is completed by the journal, once.
    const hastyNonce = bodies[hasty]!.paymentPayload.payload.authorization.nonce
    await waitFor('the hasty row settled', async () => {
      const rows = await f.rows()
      return rows.some((r) => r.nonce === hastyNonce && isSettled(r.state)) ? true : undefined
    })
    expect(await f.balanceOf(payee)).to.equal(
      500n + bodies.reduce((sum, b) => sum + BigInt(b.paymentPayload.payload.authorization.value), 0n),
    )
  })

  it('blocks every 3 s: 30 concurrent payments, one with maxTimeoutSeconds 1: the other 29 answer success', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    await anvilRpc(f.chain.rpcUrl, 'evm_setIntervalMining', [3])
    try {
      const payee = freshAddress()
      const bodies = await Promise.all(
        Array.from({ length: 30 }, (_, n) => paymentFromPayer(f, n % 3, payee, 2_000n + BigInt(n))),
      )
      bodies[7]!.paymentRequirements.maxTimeoutSeconds = 1
      const answers = await Promise.all(bodies.map((body) => f.post('settle', body)))
      const others = answers.filter((_, n) => n !== 7)
      expect(others.map((a) => a.status)).to.deep.equal(Array(29).fill(200))
      expect(others.every((a) => a.body.success === true)).to.equal(true)
      expect([200, 202]).to.include(answers[7]!.status)
    } finally {
      await anvilRpc(f.chain.rpcUrl, 'evm_setIntervalMining', [0])
    }
  })
})
