import { expect } from 'chai'
import { address } from '@solana/kit'
import { startSvmFacilitator, type SvmFacilitator } from './support/svm-facilitator.js'
import { waitFor } from './support/wait-for.js'

/**
 * One EVM and one Solana network served together: one network's node down leaves the other settling, and the network
 * that is down is answered 503 before anything is signed or sent (issue 40).
 */
describe('EVM and Solana served together, one node down (app, anvil, the local SVM, Postgres)', function () {
  this.timeout(180_000)
  let s: SvmFacilitator
  before(async () => {
    s = await startSvmFacilitator({ RPC_TIMEOUT_MS: '1000' })
  })
  after(() => s?.stop())

  const svmBody = async () => {
    const payer = await s.svm.fundedAccount(5_000_000n)
    const payTo = await s.payee()
    const required = s.requirements(payTo)
    const paymentPayload = await s.officialPayment(payer, required)
    return { payTo, body: { x402Version: 2, paymentPayload, paymentRequirements: required } }
  }

  it('the Solana node down: its settle is a 503 with nothing sent, while EVM payments settle; back up, it settles', async () => {
    const { payTo, body } = await svmBody()
    s.setDown(true)
    try {
      const down = await s.f.post('settle', body)
      expect(down.status, JSON.stringify(down.body)).to.equal(503)
      const evm = await s.f.post('settle', await s.f.payment())
      expect(evm.status, JSON.stringify(evm.body)).to.equal(200)
      expect(evm.body.success).to.equal(true)
    } finally {
      s.setDown(false)
    }
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(0n)
    const rows = await s.f.rows()
    expect(rows.filter((row) => String(row.chain_id).startsWith('solana:'))).to.have.length(0)
    const up = await s.f.post('settle', body)
    expect(up.status, JSON.stringify(up.body)).to.equal(200)
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(1_000_000n)
  })

  it("/readyz and /metrics show the Solana network's fee payer and its SOL", async () => {
    const origin = new URL(s.f.base).origin
    const ready = await waitFor('readiness read', async () => {
      const answer = (await (await fetch(`${origin}/readyz`)).json()) as { checks: Record<string, { ok: boolean }> }
      return answer.checks[`gas:${s.requirements('x').network}`] === undefined ? undefined : answer
    })
    expect(ready.checks[`gas:${s.requirements('x').network}`]).to.deep.include({ ok: true })
    const metrics = await (await fetch(`${origin}/metrics`)).text()
    // As last read: between what it holds now and the 10 SOL it was funded with.
    const lamports = Number(s.svm.svm.getBalance(s.feePayer.address))
    const line = metrics.split('\n').find((l) => l.startsWith('facilitator_solana_fee_payer_lamports{'))
    expect(line).to.include(`account="${s.feePayer.address}"`)
    expect(Number(line!.split(' ').pop())).to.be.within(lamports, 10_000_000_000)
  })

  it('the EVM node down: Solana payments still settle', async () => {
    const { payTo, body } = await svmBody()
    await s.f.chain.stop()
    const settled = await s.f.post('settle', body)
    expect(settled.status, JSON.stringify(settled.body)).to.equal(200)
    expect(settled.body.success).to.equal(true)
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(1_000_000n)
  })
})
