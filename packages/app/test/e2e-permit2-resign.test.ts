import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { anvilRpc } from './support/chain-control.js'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'
import { canonicalReceipt, snapshot } from './support/reorg.js'
import { waitFor } from './support/wait-for.js'

/**
 * Permit2 settlements (issue 26) whose transaction a reorg removed while another took its account nonce: the row is
 * signed again at a new nonce (docs/ARCHITECTURE.md §5.6), built from the row: an `upto` one moves the amount asked,
 * never the signed maximum; a sponsored one carries its EIP-2612 permit again. Payloads made by @x402/evm 2.27.
 */
describe('e2e: Permit2 settlements signed again after a reorg', function () {
  this.timeout(120_000)
  let f: Permit2Facilitator
  before(async () => {
    f = await startPermit2Facilitator({ CONFIRMATIONS: '1' })
  })
  after(() => f?.stop())

  /** The chain back to `before`, where a transfer of the key to itself takes the nonce `txHash` had; then 2 blocks. */
  const reorgTakingNonceOf = async (before: unknown, txHash: string) => {
    const rpc = f.chain.rpcUrl
    const key = f.chain.facilitator.address as Address
    const sent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [txHash])) as { nonce: string }
    expect(await anvilRpc(rpc, 'evm_revert', [before])).to.equal(true)
    await anvilRpc(rpc, 'anvil_impersonateAccount', [key])
    await anvilRpc(rpc, 'eth_sendTransaction', [{ from: key, to: key, value: '0x0', nonce: sent.nonce }])
    await anvilRpc(rpc, 'anvil_stopImpersonatingAccount', [key])
    for (let i = 0; i < 2; i++) await anvilRpc(rpc, 'evm_mine')
    return BigInt(sent.nonce)
  }

  /** The row of `first`'s payment settled again by another transaction, on the chain now. */
  const settledAgain = (first: string, value: string) =>
    waitFor(
      'the row settled again by a new transaction on the chain',
      async () => {
        const found = (await f.rows()).find((r) => r.state !== 'waived' && r.value === value)
        if (!['confirmed', 'final'].includes(String(found?.state)) || found?.tx_hash === first) return undefined
        const receipt = await canonicalReceipt(f.chain.rpcUrl, String(found!.tx_hash))
        return receipt?.status === '0x1' ? found : undefined
      },
      60_000,
    )

  it('upto: the re-signed transaction moves the amount asked, once', async () => {
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
    const sentNonce = await reorgTakingNonceOf(before, first)
    const row = await settledAgain(first, '1500000')
    const resent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [row.tx_hash])) as { nonce: string; from: string }
    expect(BigInt(resent.nonce) > sentNonce).to.equal(true)
    expect(resent.from.toLowerCase()).to.equal(key)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_500_000n)
    expect(await f.tokenBalance(payer)).to.equal(payerBefore - 1_500_000n)
  })

  it('sponsored exact: the re-signed transaction carries the permit again and pays, once', async () => {
    const payer = f.chain.payers[3]!.address as Address
    const accepted = f.requirements('exact', 700_000n)
    const payload = await f.pay(3, accepted, { sponsored: true })
    const [payeeBefore, payerBefore] = [await f.tokenBalance(PAYEE), await f.tokenBalance(payer)]
    const before = await snapshot(f.chain.rpcUrl)
    const settled = await f.post('settle', f.body(payload, accepted))
    expect(settled.body).to.deep.include({ success: true })
    const first = settled.body.transaction as string
    await reorgTakingNonceOf(before, first)
    const row = await settledAgain(first, '700000')
    expect(row.tx_hash).to.not.equal(first)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 700_000n)
    expect(await f.tokenBalance(payer)).to.equal(payerBefore - 700_000n)
  })
})
