import { expect } from 'chai'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { transfersTo } from './support/payments-on-chain.js'
import { settleLeftPending } from './support/pending-settle.js'
import { startRefusingRpcProxy, type RefusingRpcProxy } from './support/refusing-rpc-proxy.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * Recovery reads the mined nonce and the receipts, finds none, and sends the stored transaction again
 * (docs/ARCHITECTURE.md §5.5). Should the block holding it be mined in between, the node refuses the send ("nonce too
 * low"): that refusal says the nonce is spent, not that the transaction will never be mined. The row must end as the
 * chain says (its transfer mined), never `released` with the payee paid.
 */
describe('a stored transaction mined between recovery reading its receipt and sending it again (real app, anvil, Postgres)', function () {
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
  afterEach(() => chainBackToNormal(f.chain))

  it('the row ends confirmed with its own transaction, the payee paid once', async () => {
    const pending = await settleLeftPending(f)
    const { payee, firstRaw } = pending
    const row = { id: pending.rowId }
    let mined = false
    proxy.beforeBroadcastOf(firstRaw, async () => {
      await anvilRpc(f.chain.rpcUrl, 'evm_mine')
      mined = true
    })
    const ended = await waitFor('the row no longer submitted', async () => {
      const now = (await f.rows()).find((r) => r.id === row.id)!
      return now.state === 'submitted' ? undefined : now
    })
    expect(mined, 'the block was mined just before the stored transaction was sent again').to.equal(true)
    // Confirmed with it (CONFIRMATIONS=0: final as soon as the watcher looks), never released.
    expect(ended.state, JSON.stringify(ended)).to.be.oneOf(['confirmed', 'final'])
    expect(ended).to.include({ tx_hash: pending.txHash })
    expect(await transfersTo(f, payee)).to.equal(1)
  })
})
