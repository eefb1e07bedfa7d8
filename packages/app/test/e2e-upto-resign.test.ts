import { expect } from 'chai'
import type { Address } from '@x402-facilitator/domain'
import { anvilRpc } from './support/chain-control.js'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'
import { canonicalReceipt, snapshot } from './support/reorg.js'
import { waitFor } from './support/wait-for.js'

/**
 * An `upto` settlement (issue 26) whose transaction a reorg removed while another took its account nonce: the row is
 * signed again at a new nonce (docs/ARCHITECTURE.md §5.6). The new transaction is built from the row, so it moves the
 * amount asked, never the signed maximum. Payload made by @x402/evm 2.27's `UptoEvmScheme`.
 */
describe('e2e: an upto settlement signed again after a reorg', function () {
  this.timeout(120_000)
  let f: Permit2Facilitator
  before(async () => {
    f = await startPermit2Facilitator({ CONFIRMATIONS: '1' })
  })
  after(() => f?.stop())

  it('the re-signed transaction moves the amount asked, once', async () => {
    const rpc = f.chain.rpcUrl
    const key = f.chain.facilitator.address as Address
    const payer = f.chain.payers[0]!.address as Address
    const maximum = f.requirements('upto', 4_000_000n)
    const payload = await f.pay(0, maximum)
    const [payeeBefore, payerBefore] = [await f.tokenBalance(PAYEE), await f.tokenBalance(payer)]
    const before = await snapshot(rpc)
    const settled = await f.post('settle', f.body(payload, { ...maximum, amount: '1500000' }))
    expect(settled.body).to.deep.include({ success: true, amount: '1500000' })
    const first = settled.body.transaction as string
    const sent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [first])) as { nonce: string }

    // The new chain: a zero-value transfer of the facilitator's account to itself at that nonce, then two more blocks.
    expect(await anvilRpc(rpc, 'evm_revert', [before])).to.equal(true)
    await anvilRpc(rpc, 'anvil_impersonateAccount', [key])
    await anvilRpc(rpc, 'eth_sendTransaction', [{ from: key, to: key, value: '0x0', nonce: sent.nonce }])
    await anvilRpc(rpc, 'anvil_stopImpersonatingAccount', [key])
    for (let i = 0; i < 2; i++) await anvilRpc(rpc, 'evm_mine')

    const row = await waitFor(
      'the row settled again by a new transaction on the chain',
      async () => {
        const found = (await f.rows()).find((r) => r.state !== 'waived' && r.value === '1500000')
        if (!['confirmed', 'final'].includes(String(found?.state)) || found?.tx_hash === first) return undefined
        const receipt = await canonicalReceipt(rpc, String(found!.tx_hash))
        return receipt?.status === '0x1' ? found : undefined
      },
      60_000,
    )
    const resent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [row.tx_hash])) as { nonce: string; from: string }
    expect(BigInt(resent.nonce) > BigInt(sent.nonce)).to.equal(true)
    expect(resent.from.toLowerCase()).to.equal(key)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_500_000n)
    expect(await f.tokenBalance(payer)).to.equal(payerBefore - 1_500_000n)
  })
})
