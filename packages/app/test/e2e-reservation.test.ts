import { expect } from 'chai'
import { anvilRpc, isSettled } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const pendingCount = async (f: TestFacilitator) =>
  BigInt(
    (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, 'pending'])) as string,
  )

describe('rule 9 across a 202: the amount of a pending settle stays in flight until its row ends (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({
      RPC_TIMEOUT_MS: '1000',
      RECOVERY_INTERVAL_MS: '300',
      RECEIPT_TIMEOUT_SECONDS: '2',
    })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('a payer whose whole balance is pending cannot get a second transfer broadcast (it would revert on our gas)', async () => {
    const payer = f.chain.payers[1]!.address
    const balance = await f.balanceOf(payer)
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const all = await f.payment({ payer: 1, value: balance })
    all.paymentRequirements.amount = balance.toString()
    all.paymentRequirements.maxTimeoutSeconds = 1
    const first = await f.post('settle', all)
    expect(first.status).to.equal(202)
    const sentBefore = await pendingCount(f)

    for (let i = 0; i < 3; i++) {
      const more = await f.payment({ payer: 1, value: 1n })
      more.paymentRequirements.amount = '1'
      more.paymentRequirements.maxTimeoutSeconds = 1
      const answer = await f.post('settle', more)
      expect(answer.status).to.equal(200)
      expect(answer.body).to.include({ success: false, errorCode: 'insufficient_funds' })
      expect((await f.post('verify', more)).body).to.include({ valid: false, reasonCode: 'insufficient_funds' })
    }
    expect(await pendingCount(f), 'nothing more broadcast').to.equal(sentBefore)

    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the pending row confirmed', async () => {
      const row = (await f.rows()).find((r) => r.tx_hash === first.body.txHash)
      return isSettled(row?.state) ? row : undefined
    })
    expect(await f.balanceOf(payer)).to.equal(0n)
  })
})
