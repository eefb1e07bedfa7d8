import { expect } from 'chai'
import { anvilRpc, hasPendingTransaction, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { asX402V2 } from './support/x402-v2-body.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

describe('after a 202, a retry learns the outcome from the chain, not at the next recovery pass (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    // Recovery far away: only the retry itself can learn of the receipt.
    f = await startTestFacilitator({ RECOVERY_INTERVAL_MS: '600000', RECEIPT_TIMEOUT_SECONDS: '3' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('a keyed retry after the block is mined answers success with the mined transaction, and the journal records it', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 2 })
    body.paymentRequirements.maxTimeoutSeconds = 1
    const first = await f.post('settle', body, { 'idempotency-key': 'order-202' })
    expect(first.status).to.equal(202)
    await waitFor('the transfer in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')

    const retry = await f.post('settle', body, { 'idempotency-key': 'order-202' })
    expect(retry.status).to.equal(200)
    // The 202 was no success: the retry's is the payment's one, not a replay; asked again, it is replayed.
    expect(retry.body).to.include({ success: true, txHash: first.body.txHash })
    expect(retry.body).to.not.have.property('replayed')
    const again = await f.post('settle', body, { 'idempotency-key': 'order-202' })
    expect(again.body).to.include({ success: true, txHash: first.body.txHash, replayed: true })
    const row = (await f.rows()).find((r) => r.tx_hash === first.body.txHash)
    expect(row?.state).to.be.oneOf(SETTLED_STATES)
  })

  it('the x402 v2 dialect says which state an earlier settlement is in', async () => {
    const body = await f.payment({ payer: 1 })
    expect((await f.post('settle', body)).body).to.include({ success: true })
    const again = await f.post('settle', asX402V2(body))
    expect(again.body).to.include({ success: false, errorReason: 'authorization_already_used' })
    expect(again.body.settlementState).to.be.oneOf(SETTLED_STATES)
  })
})
