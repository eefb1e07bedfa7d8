import { expect } from 'chai'
import { anvilRpc, hasPendingTransaction, receiptOf, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

interface PoolTransaction {
  readonly hash: string
  readonly to: string
  readonly input: string
}

describe('someone copies our pending transfer from the mempool and gets it mined first (real app, anvil)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ RECEIPT_TIMEOUT_SECONDS: '10' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('ours reverts, yet the payee was paid: the answer is success with the copy, and the journal names the copy', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payeeBefore = await f.balanceOf(PAYEE)
    const body = await f.payment({ value: 5_000n })
    body.paymentRequirements.amount = '5000'
    body.paymentRequirements.maxTimeoutSeconds = 10
    const answer = f.post('settle', body)
    await waitFor('our transfer in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    const pool = (await anvilRpc(f.chain.rpcUrl, 'txpool_content', [])) as {
      pending: Record<string, Record<string, PoolTransaction>>
    }
    const ours = Object.values(
      Object.entries(pool.pending).find(
        ([from]) => from.toLowerCase() === f.chain.facilitator.address.toLowerCase(),
      )![1],
    )[0]!
    // The copier resends the same calldata (the payer's signed authorization) with a far higher tip.
    const [copier] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as string[]
    const copy = (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
      {
        from: copier,
        to: ours.to,
        data: ours.input,
        gas: '0x30d40',
        maxFeePerGas: '0x174876e800',
        maxPriorityFeePerGas: '0x174876e800',
      },
    ])) as string
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')

    expect((await receiptOf(f.chain.rpcUrl, copy))?.status).to.equal('0x1')
    expect((await receiptOf(f.chain.rpcUrl, ours.hash))?.status).to.equal('0x0')
    const res = await answer
    expect(res.status).to.equal(200)
    expect(res.body).to.include({ success: true, txHash: copy })
    const row = (await f.rows()).find(
      (r) => r.payer === body.paymentPayload.payload.authorization.from && r.value === '5000',
    )
    expect(row).to.include({ tx_hash: copy })
    expect(row?.state).to.be.oneOf(SETTLED_STATES)
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 5_000n)
  })
})
