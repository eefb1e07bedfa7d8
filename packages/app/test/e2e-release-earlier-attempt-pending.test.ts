import { expect } from 'chai'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { transfersTo } from './support/payments-on-chain.js'
import { settleLeftPending } from './support/pending-settle.js'
import { startRefusingRpcProxy, type RefusingRpcProxy } from './support/refusing-rpc-proxy.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/** A refusal that says nothing of the nonce: the replacement is refused, the first attempt stays in the pool. */
const REFUSAL = 'replacement transaction underpriced'

/**
 * A row's latest attempt (a fee replacement) is refused while an earlier attempt at the same nonce is still in the
 * node's pool (docs/ARCHITECTURE.md §5.5): the row must not be released, since that earlier attempt can still be
 * mined; once it is, the row ends confirmed with it, never `released` with the payee paid.
 */
describe('the latest attempt of a row refused while an earlier one is pending (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let proxy: RefusingRpcProxy
  before(async () => {
    proxy = await startRefusingRpcProxy()
    f = await startTestFacilitator(FAULT_TIMINGS, {}, undefined, (chain) => {
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
    await chainBackToNormal(f.chain)
  })

  it('the row stays submitted while the first attempt is pending, then ends confirmed with it, the payee paid once', async () => {
    const pending = await settleLeftPending(f)
    const { payee } = pending
    const row = { id: pending.rowId }
    const firstRaw = pending.firstRaw.toLowerCase()
    // Every broadcast but the first attempt's is refused: its replacements (and any gap filler) never reach the pool.
    let refusals = 0
    proxy.refuseBroadcasts(REFUSAL, (raw) => {
      if (raw === firstRaw) return false
      refusals += 1
      return true
    })
    // A replacement is recorded and refused, then sent again on later passes (each refused): by the fourth refusal
    // at least one pass has judged the refused latest attempt while the first one was pending.
    const judged = await waitFor('the row released, or its latest attempt refused on several passes', async () => {
      const now = (await f.rows()).find((r) => r.id === row.id)!
      return now.state !== 'submitted' || refusals >= 4 ? now : undefined
    })
    expect(judged, JSON.stringify(judged)).to.include({ state: 'submitted' })
    const attempts = await f.db.knex('settlement_attempts').where({ settlement_id: row.id })
    expect(attempts.length, 'the row has a replacement besides its first attempt').to.be.greaterThan(1)
    proxy.refuseBroadcasts(undefined)
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const ended = await waitFor('the row no longer submitted', async () => {
      const now = (await f.rows()).find((r) => r.id === row.id)!
      return now.state === 'submitted' ? undefined : now
    })
    // Confirmed with it (CONFIRMATIONS=0: final as soon as the watcher looks), never released.
    expect(ended.state, JSON.stringify(ended)).to.be.oneOf(['confirmed', 'final'])
    expect(ended).to.include({ tx_hash: pending.txHash })
    expect(await transfersTo(f, payee)).to.equal(1)
  })
})
