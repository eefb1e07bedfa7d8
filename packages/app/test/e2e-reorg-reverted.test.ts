import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { drainPayer } from './support/payer-actions.js'
import { freshAddress } from './support/payments-on-chain.js'
import { canonicalReceipt, snapshot } from './support/reorg.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * docs/ARCHITECTURE.md §5.6 on a real anvil and Postgres through the real app: a `reverted` row is followed through
 * reorgs as a confirmed one is. Its block replaced, its transaction back in the pool (a node re-injects the
 * transactions of a dropped block) and mined successfully on the new chain: the payment moved, and the journal says so.
 */
describe('reorgs: a reverted settlement whose transaction the new chain mines successfully (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ CONFIRMATIONS: '2' })
  })
  after(async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]).catch(() => undefined)
    await f?.stop()
  })

  it('reverted, its block replaced, re-mined successfully: recorded as paid, naming the transaction on the chain', async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address as Address
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(rpc)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 0, value: 1_000_000n })
    body.paymentRequirements.maxTimeoutSeconds = 20
    const { from, nonce } = body.paymentPayload.payload.authorization
    const answer = f.post('settle', body)
    await waitFor('our transfer in the pool', async () =>
      (await hasPendingTransaction(rpc, facilitator)) ? true : undefined,
    )
    // The payer's funds leave in the same block, ahead of ours: ours reverts.
    await drainPayer(f, 0, freshAddress())
    await anvilRpc(rpc, 'evm_mine')
    await anvilRpc(rpc, 'evm_setAutomine', [true])
    const settled = await answer
    expect(settled.body).to.include({ success: false, errorCode: 'invalid_transaction_state' })
    const reverted = (await f.rows()).find((r) => r.payer === from.toLowerCase() && r.nonce === nonce.toLowerCase())!
    expect(reverted.state).to.equal('reverted')
    const [attempt] = await f.db
      .knex('settlement_attempts')
      .where({ settlement_id: reverted.id })
      .select('tx_hash', 'raw')

    // The reorg: the drain is gone; our transaction, back in the pool, is mined on the new chain and succeeds.
    expect(await anvilRpc(rpc, 'evm_revert', [before])).to.equal(true)
    await anvilRpc(rpc, 'eth_sendRawTransaction', [attempt.raw])
    for (let i = 0; i < 3; i++) await anvilRpc(rpc, 'evm_mine')
    const onChain = await canonicalReceipt(rpc, String(attempt.tx_hash))
    expect(onChain?.status).to.equal('0x1')
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 1_000_000n)

    const paid = await waitFor('the row recorded as paid', async () => {
      const row = (await f.rows()).find((r) => r.id === reverted.id)
      return row !== undefined && ['confirmed', 'final'].includes(String(row.state)) ? row : undefined
    })
    expect(paid).to.include({ tx_hash: attempt.tx_hash, block_hash: onChain!.blockHash })
    const lookup = (await (await fetch(`${f.base}/settlements?payer=${from}&nonce=${nonce}`)).json()) as Record<
      string,
      unknown
    >
    expect(lookup.txHash).to.equal(attempt.tx_hash)
    expect(lookup.state).to.be.oneOf(['confirmed', 'final'])
  })
})
