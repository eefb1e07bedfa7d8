import { expect } from 'chai'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { canonicalReceipt, reorgTo, snapshot } from './support/reorg.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * docs/ARCHITECTURE.md §5.6: `SETTLE_WAIT_FOR=final`, and a reorg while a settle is `settlement_pending` (real app).
 */
describe('settle answers at finality; a reorg during settlement_pending (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({
      CONFIRMATIONS: '1',
      SETTLE_WAIT_FOR: 'final',
      RECEIPT_TIMEOUT_SECONDS: '5',
      RECOVERY_INTERVAL_MS: '500',
      RPC_TIMEOUT_MS: '1000',
    })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  const rowOf = async (payer: string, nonce: string) =>
    (await f.rows()).find((r) => r.payer === payer.toLowerCase() && r.nonce === nonce.toLowerCase())

  it('SETTLE_WAIT_FOR=final: success only once a block is on top of the transfer, with its confirmations', async () => {
    const body = await f.payment({ payer: 0, value: 10_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const answer = f.post('settle', body)
    // Mined at once (automine), but CONFIRMATIONS=1 wants a block on top: the settle still waits.
    await waitFor('the row confirmed', async () =>
      (await rowOf(from, nonce))?.state === 'confirmed' ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const settled = await answer
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: true })
    expect(settled.body.confirmations).to.be.at.least(1)
    expect(await rowOf(from, nonce)).to.include({ state: 'final', tx_hash: settled.body.txHash })
    // Answered final: its receipt says so, at the block the row names.
    const row = await rowOf(from, nonce)
    expect((settled.body.receipt as { message: Record<string, string> }).message).to.include({
      state: 'final',
      transactionHash: settled.body.txHash,
      blockNumber: String(row!.block_number),
      blockHash: row!.block_hash,
    })
  })

  it('SETTLE_WAIT_FOR=final: no block on top within the receipt timeout → 202 settlement_pending with the transaction; final later', async () => {
    const body = await f.payment({ payer: 1, value: 20_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const pending = await f.post('settle', body)
    expect(pending.status).to.equal(202)
    expect(pending.body).to.include({ errorCode: 'settlement_pending' })
    const row = await rowOf(from, nonce)
    expect(row).to.include({ state: 'confirmed', tx_hash: pending.body.txHash })
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the row final', async () => ((await rowOf(from, nonce))?.state === 'final' ? true : undefined))
  })

  it('a transfer mined and then reorged away while its settle was answered settlement_pending: on the chain again, paid once', async () => {
    const rpc = f.chain.rpcUrl
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(rpc)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 2, value: 30_000n })
    body.paymentRequirements.maxTimeoutSeconds = 1
    const { from, nonce } = body.paymentPayload.payload.authorization
    const pending = await f.post('settle', body)
    expect(pending.status).to.equal(202)
    expect(await hasPendingTransaction(rpc, f.chain.facilitator.address)).to.equal(true)
    await anvilRpc(rpc, 'evm_mine')
    expect(await canonicalReceipt(rpc, String(pending.body.txHash))).to.not.equal(undefined)
    await reorgTo(rpc, before)
    await anvilRpc(rpc, 'evm_setAutomine', [true])
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore)

    await waitFor(
      'the settlement on the chain again, journalled with its block',
      async () => {
        const row = await rowOf(from, nonce)
        if (row === undefined || !['confirmed', 'final'].includes(String(row.state))) return undefined
        const receipt = await canonicalReceipt(rpc, String(row.tx_hash))
        return receipt?.status === '0x1' && receipt.blockHash === row.block_hash ? row : undefined
      },
      30_000,
    )
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 30_000n)
  })
})
