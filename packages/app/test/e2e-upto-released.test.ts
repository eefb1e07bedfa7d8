import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { placeLocalPermit2 } from '@x402-facilitator/adapters-chain/testing'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS } from './support/chain-control.js'
import { PAYER_UNITS } from './support/permit2-facilitator.js'
import { permit2Payers, type Permit2Payers } from './support/permit2-payers.js'
import { startRefusingRpcProxy, type RefusingRpcProxy } from './support/refusing-rpc-proxy.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'

const REFUSAL = 'transaction rejected by the node under test'

/**
 * docs/ARCHITECTURE.md §5 "upto" and §5.5: an `upto` row released while its transaction may still be mined (the node
 * asked refused it and said it held none; another node's pool kept it) is not claimed again for another amount, nor
 * waived: that transaction, mined after all, would charge what no row says. The settle is answered 202 naming it,
 * and once it is mined the row records the payment it made.
 */
describe('an upto row released while its transaction may still be mined (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator & Permit2Payers
  let proxy: RefusingRpcProxy
  before(async () => {
    proxy = await startRefusingRpcProxy()
    const started = await startTestFacilitator(
      { ...FAULT_TIMINGS, TRANSFER_METHODS: 'permit2', REPLACE_AFTER_MS: '600000' },
      { payers: 1 },
      async (chain) => {
        const payers = chain.payers.map((p) => p.address)
        const placed = await placeLocalPermit2(chain.rpcUrl, {
          demoUsdt: { payers, units: PAYER_UNITS, approving: payers },
        })
        return placed.demoUsdt!
      },
      (chain) => {
        proxy.target = chain.rpcUrl
        return { RPC_URL: proxy.url }
      },
    )
    f = {
      ...started,
      ...permit2Payers({
        rpcUrl: started.chain.rpcUrl,
        chainId: started.chain.chainId,
        asset: started.asset,
        domain: started.domain,
        payerKeys: started.chain.payers.map((p) => p.privateKey),
        facilitator: started.chain.facilitator.address,
        payee: PAYEE,
      }),
    }
  })
  after(async () => {
    proxy?.refuseBroadcasts(undefined)
    proxy?.hideTransactions([])
    await f?.stop()
    await proxy?.close()
  })

  it('another amount, or nothing, is answered 202 naming that transaction, never claimed; mined, it is the payment', async () => {
    const key = f.chain.facilitator.address as Address
    const maximum = f.requirements('upto', 5_000_000n)
    const payload = await f.pay(0, maximum)
    const charge = (amount: bigint) => f.post('settle', f.body(payload, { ...maximum, amount: amount.toString() }))
    const payeeBefore = await f.tokenBalance(PAYEE)

    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const first = await charge(1_000_000n)
    expect(first.status, JSON.stringify(first.body)).to.equal(202)
    const txHash = String(first.body.transaction)
    // The node asked refuses the stored transaction and knows nothing of it; anvil's pool keeps it.
    proxy.hideTransactions([txHash])
    proxy.refuseBroadcasts(REFUSAL)
    await waitFor('the row released', async () =>
      (await f.rows()).some((r) => r.tx_hash === txHash && r.state === 'released') ? true : undefined,
    )

    const sent = await f.sentBy(key)
    for (const amount of [2_000_000n, 0n]) {
      const other = await charge(amount)
      expect(other.status, `${amount}: ${JSON.stringify(other.body)}`).to.equal(202)
      expect(other.body).to.deep.include({ errorReason: 'settlement_pending', transaction: txHash })
    }
    expect(await f.sentBy(key)).to.equal(sent)
    expect((await f.rows()).map((r) => r.state)).to.deep.equal(['released'])

    // Another node's pool mines it after all: the payment of 1 USD is recorded, and nothing else is charged.
    proxy.refuseBroadcasts(undefined)
    proxy.hideTransactions([])
    await chainBackToNormal(f.chain)
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the row confirmed with that transaction', async () =>
      (await f.rows()).some((r) => r.tx_hash === txHash && ['confirmed', 'final'].includes(String(r.state)))
        ? true
        : undefined,
    )
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_000_000n)
    const later = await charge(0n)
    expect(later.body).to.deep.include({ success: false, errorReason: 'authorization_already_used' })
  })
})
