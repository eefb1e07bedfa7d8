import { expect } from 'chai'
import { waitFor } from './support/wait-for.js'
import { freshAddress } from './support/payments-on-chain.js'
import { canonicalReceipt, reorgTo, snapshot } from './support/reorg.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * docs/ARCHITECTURE.md §5.8 on a real anvil and Postgres through the real app: the rows of a signing key no replica
 * runs any more (removed from the pool before it was drained) are still followed — a reorg that replaces their block
 * is seen, and the settlement is put back on the chain — and `/readyz` names that key and its row count, staying 200.
 */
describe('rows of a key no replica runs are still followed through reorgs (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ CONFIRMATIONS: '3', PROBE_REFRESH_MS: '200', RECOVERY_INTERVAL_MS: '500' })
  })
  after(() => f?.stop())

  it('a confirmed row of a gone key whose block is replaced is finished again; /readyz names the key and its rows', async () => {
    const rpc = f.chain.rpcUrl
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(rpc)
    const body = await f.payment({ payer: 1, value: 400_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true })
    // The row's key leaves the pool: no replica holds its lock any more.
    const gone = freshAddress()
    await f.db
      .knex('settlements')
      .where({ payer: from.toLowerCase(), nonce: nonce.toLowerCase() })
      .update({ owner: gone })

    // /readyz reads the journal at most once a probe interval: the key shows within one.
    const orphaned = await waitFor('/readyz naming the gone key', async () => {
      const readyz = await fetch(`${new URL(f.base).origin}/readyz`)
      expect(readyz.status).to.equal(200)
      const checks = ((await readyz.json()) as { checks: Record<string, { ok: boolean; detail: string }> }).checks
      return checks.orphanedKeys?.detail.includes(gone) ? checks.orphanedKeys : undefined
    })
    expect(orphaned).to.deep.include({ ok: true })
    expect(orphaned.detail).to.include('1 row')

    await reorgTo(rpc, before)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore)
    const back = await waitFor(
      "the gone key's row back on the chain, journalled with its block",
      async () => {
        const row = (await f.rows()).find((r) => r.payer === from.toLowerCase() && r.nonce === nonce.toLowerCase())
        if (row === undefined || !['confirmed', 'final'].includes(String(row.state))) return undefined
        const receipt = await canonicalReceipt(rpc, String(row.tx_hash))
        return receipt?.status === '0x1' && receipt.blockHash === row.block_hash ? row : undefined
      },
      40_000,
    )
    expect(back.owner).to.equal(gone)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 400_000n)
  })
})
