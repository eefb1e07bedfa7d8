import { expect } from 'chai'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { anvilRpc, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'

describe('end to end: settle over real HTTP, anvil and Postgres', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator()
  })
  after(() => f?.stop())

  it('moves exactly the value on-chain, answers hash + block, and the journal row is confirmed', async () => {
    const payer = f.chain.payers[0]!.address
    const [payerBefore, payeeBefore] = [await f.balanceOf(payer), await f.balanceOf(PAYEE)]
    const body = await f.payment({ value: 1_250_000n })
    body.paymentRequirements.amount = '1250000'
    const res = await f.post('settle', body)
    expect(res.status).to.equal(200)
    expect(res.body).to.have.keys('success', 'txHash', 'blockNumber', 'confirmations', 'payer', 'receipt')
    expect(res.body.confirmations).to.equal(0)
    expect(res.body).to.include({ success: true, payer })
    const receipt = (await (
      await fetch(f.chain.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [res.body.txHash] }),
      })
    ).json()) as { result: { status: string; blockNumber: string; from: string } }
    expect(receipt.result.status).to.equal('0x1')
    expect(Number(receipt.result.blockNumber)).to.equal(res.body.blockNumber)
    expect(receipt.result.from).to.equal(f.chain.facilitator.address)
    expect(await f.balanceOf(payer)).to.equal(payerBefore - 1_250_000n)
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 1_250_000n)

    const rows = await f.rows()
    expect(rows).to.have.length(1)
    expect(rows[0]).to.include({
      tx_hash: res.body.txHash,
      payer,
      payee: PAYEE,
      value: '1250000',
      block_number: String(res.body.blockNumber),
    })
    expect(rows[0]?.state).to.be.oneOf(SETTLED_STATES)
  })

  it('a replayed settle is refused with the first transaction, and nothing is sent twice', async () => {
    const body = await f.payment({ payer: 1 })
    const first = await f.post('settle', body)
    expect(first.body).to.include({ success: true })
    const payerBalance = await f.balanceOf(f.chain.payers[1]!.address)
    const replay = await f.post('settle', body)
    expect(replay.status).to.equal(200)
    expect(replay.body).to.include({
      success: false,
      errorCode: 'authorization_already_used',
      txHash: first.body.txHash,
    })
    expect(replay.body.settlementState).to.be.oneOf(SETTLED_STATES)
    expect(await f.balanceOf(f.chain.payers[1]!.address)).to.equal(payerBalance)
  })

  it('a rule failure answers success:false with the code and records nothing', async () => {
    const before = (await f.rows()).length
    const body = await f.payment({ payer: 2 })
    body.paymentRequirements.payTo = `0x${'56'.repeat(20)}`
    const res = await f.post('settle', body)
    expect(res.status).to.equal(200)
    expect(res.body).to.include({ success: false, errorCode: 'invalid_exact_evm_payload_recipient_mismatch' })
    expect((await f.rows()).length).to.equal(before)
  })

  it('bad input classes through the real app: 400, 413, 415, 404, 405', async () => {
    expect((await f.post('settle', '{oops')).status).to.equal(400)
    expect((await f.post('settle', JSON.stringify({ pad: 'x'.repeat(65 * 1024) }))).status).to.equal(413)
    const form = await fetch(`${f.base}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    })
    expect(form.status).to.equal(415)
    expect((await fetch(`${f.base}/nope`)).status).to.equal(404)
    const wrong = await fetch(`${f.base}/settle`)
    expect(wrong.status).to.equal(405)
    expect(wrong.headers.get('allow')).to.equal('POST')
  })

  it("a key's lowest transaction the node dropped while a later one waits is replaced at once (STALL_REPLACE_MS), not after RECEIPT_TIMEOUT_SECONDS: both settles answer success", async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address.toLowerCase()
    type Pool = { pending: Record<string, Record<string, { hash: string }>> }
    const ours = async () =>
      Object.entries(((await anvilRpc(rpc, 'txpool_content')) as Pool).pending).find(
        ([from]) => from.toLowerCase() === facilitator,
      )?.[1] ?? {}
    const pooled = (count: number) => async () => (Object.keys(await ours()).length === count ? true : undefined)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    let dropped: string
    let answers: Array<ReturnType<TestFacilitator['post']>>
    try {
      const first = f.post('settle', await f.payment({ payer: 1, value: 1_000_000n }))
      await waitFor('the first transfer in the pool', pooled(1))
      const second = f.post('settle', await f.payment({ payer: 2, value: 1_000_000n }))
      await waitFor('the second transfer in the pool', pooled(2))
      answers = [first, second]
      const byNonce = Object.entries(await ours()).sort(([a], [b]) => Number(a) - Number(b))
      dropped = byNonce[0]![1].hash
      const laterRaw = await anvilRpc(rpc, 'eth_getRawTransactionByHash', [byNonce[1]![1].hash])
      // The lowest leaves the node's pool (anvil drops those after it too: the later one is given back), so the later
      // one can never be mined before its nonce is.
      await anvilRpc(rpc, 'anvil_dropTransaction', [dropped])
      await anvilRpc(rpc, 'eth_sendRawTransaction', [laterRaw])
      expect(await anvilRpc(rpc, 'txpool_status')).to.deep.equal({ pending: '0x0', queued: '0x1' })
    } finally {
      await anvilRpc(rpc, 'evm_setAutomine', [true])
    }
    const [lowest, later] = await Promise.all(answers)
    expect(lowest!.body).to.include({ success: true })
    expect(later!.body).to.include({ success: true })
    expect(lowest!.body.txHash).to.not.equal(dropped)
    const rows = await f.rows()
    expect(rows.find((row) => row.tx_hash === lowest!.body.txHash)).to.include({ state: 'confirmed' })
  })
})
