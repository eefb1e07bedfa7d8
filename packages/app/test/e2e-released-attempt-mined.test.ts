import { expect } from 'chai'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { transfersTo } from './support/payments-on-chain.js'
import { settleLeftPending } from './support/pending-settle.js'
import { startRefusingRpcProxy, type RefusingRpcProxy } from './support/refusing-rpc-proxy.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const REFUSAL = 'transaction rejected by the node under test'

/**
 * A row released after the node refused its stored transaction and said it held none of its attempts, while another
 * node's pool (here: anvil itself, behind a proxy that hides the attempt) still had it and mined it: the payee is paid,
 * so the row must end `confirmed` with that attempt, its event `confirmed` after its `released` (docs/ARCHITECTURE.md
 * §5.5), never stay `released`.
 */
describe('a released row whose attempt is mined after all (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let proxy: RefusingRpcProxy
  before(async () => {
    proxy = await startRefusingRpcProxy()
    // No replacement: every pass sends the stored bytes again.
    f = await startTestFacilitator({ ...FAULT_TIMINGS, REPLACE_AFTER_MS: '600000' }, {}, undefined, (chain) => {
      proxy.target = chain.rpcUrl
      return { RPC_URL: proxy.url }
    })
  })
  after(async () => {
    await f?.stop()
    await proxy?.close()
  })
  afterEach(async () => {
    proxy.refuseBroadcasts(undefined)
    proxy.hideTransactions([])
    await chainBackToNormal(f.chain)
  })

  it('the row goes from released to confirmed with its attempt, the payee paid once', async () => {
    const pending = await settleLeftPending(f)
    const row = { id: pending.rowId }
    // The node asked refuses the stored transaction and knows nothing of it; anvil's pool keeps it.
    proxy.hideTransactions([pending.txHash])
    proxy.refuseBroadcasts(REFUSAL)
    const released = await waitFor('the row released', async () => {
      const now = (await f.rows()).find((r) => r.id === row.id)!
      return now.state === 'submitted' ? undefined : now
    })
    expect(released, JSON.stringify(released)).to.include({ state: 'released' })
    expect(await transfersTo(f, pending.payee)).to.equal(0)

    // Another node's pool mines it after all (broadcasts still refused: nothing else takes its nonce).
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    expect(await transfersTo(f, pending.payee)).to.equal(1)
    // Each pass reads the account's mined nonce once at least (its gap filler): several passes after the block.
    const passesBefore = proxy.callsOf('eth_getTransactionCount')
    const judged = await waitFor('the row confirmed, or several recovery passes after the block', async () => {
      const now = (await f.rows()).find((r) => r.id === row.id)!
      return now.state !== 'released' || proxy.callsOf('eth_getTransactionCount') >= passesBefore + 6 ? now : undefined
    })
    expect(judged, JSON.stringify(judged)).to.include({ tx_hash: pending.txHash })
    expect(['confirmed', 'final'], JSON.stringify(judged)).to.include(judged.state)
    expect(judged.block_hash, 'its receipt recorded').to.be.a('string')
    // Finality follows as for any confirmed row (CONFIRMATIONS = 0: at the next head).
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const final = await waitFor('the row final', async () => {
      const now = (await f.rows()).find((r) => r.id === row.id)!
      return now.state === 'final' ? now : undefined
    })
    expect(final).to.include({ tx_hash: pending.txHash })
    const kinds = (
      await f.db.knex('settlement_events').where({ settlement_id: row.id }).orderBy('id').select('kind')
    ).map((e: { kind: string }) => e.kind)
    expect(kinds).to.deep.equal(['pending', 'released', 'confirmed', 'final'])
    // The caller's retry is answered from the row: its success, nothing sent again.
    const retry = await f.post('settle', pending.body)
    expect(retry.body, JSON.stringify(retry.body)).to.include({ success: true, txHash: pending.txHash })
    expect(await transfersTo(f, pending.payee)).to.equal(1)
  })
})
