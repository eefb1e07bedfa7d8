import { expect } from 'chai'
import { anvilRpc } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { snapshot } from './support/reorg.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const metric = async (f: TestFacilitator, line: string): Promise<number> => {
  const found = (await (await fetch(`${new URL(f.base).origin}/metrics`)).text())
    .split('\n')
    .find((l) => l.startsWith(`${line} `))
  return found === undefined ? 0 : Number(found.split(' ').pop())
}

/**
 * docs/ARCHITECTURE.md §5.6 on a real anvil and Postgres through the real app: a settlement answered success, its
 * block replaced by a chain on which its account nonce went to another transaction and its authorization has expired,
 * can never be mined again. It is not left in `submitted` for ever (a trial at every head, the payer's amount held):
 * after backed-off refusals it ends `unsettleable` with its reason, counted, and the journal reads no more of it.
 */
describe('reorgs: a settlement that can no longer be mined after a reorg ends unsettleable (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  const logLines: string[] = []
  before(async () => {
    f = await startTestFacilitator({ CONFIRMATIONS: '1', LOG_LEVEL: 'warn' }, {}, undefined, undefined, (line) =>
      logLines.push(line),
    )
  })
  after(() => f?.stop())

  it('its validBefore passed on the new chain: refused, backed off, then unsettleable with the reason; the payee unpaid', async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(rpc)
    const body = await f.payment({ payer: 0, value: 700_000n })
    const { from, nonce, validBefore } = body.paymentPayload.payload.authorization
    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: true })
    const sent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [settled.body.txHash])) as { nonce: string }

    // The new chain: later than the authorization's validBefore, its account nonce taken by another transaction.
    expect(await anvilRpc(rpc, 'evm_revert', [before])).to.equal(true)
    const latest = (await anvilRpc(rpc, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string }
    await anvilRpc(rpc, 'evm_setNextBlockTimestamp', [
      `0x${(BigInt(validBefore) + 60n > BigInt(latest.timestamp) ? BigInt(validBefore) + 60n : BigInt(latest.timestamp) + 1n).toString(16)}`,
    ])
    await anvilRpc(rpc, 'anvil_impersonateAccount', [facilitator])
    await anvilRpc(rpc, 'eth_sendTransaction', [
      { from: facilitator, to: facilitator, value: '0x0', nonce: sent.nonce },
    ])
    await anvilRpc(rpc, 'anvil_stopImpersonatingAccount', [facilitator])
    for (let i = 0; i < 2; i++) await anvilRpc(rpc, 'evm_mine')

    const rowOf = async () =>
      (await f.rows()).find((r) => r.payer === from.toLowerCase() && r.nonce === nonce.toLowerCase())!
    await waitFor('the refusal counted', async () => ((await rowOf()).refusals === 1 ? true : undefined))
    const ended = await waitFor('the row unsettleable', async () => {
      const row = await rowOf()
      return row.state === 'unsettleable' ? row : undefined
    })
    // Not ended on one try: it was refused at least the three times, a backoff apart.
    expect(Number(ended.refusals)).to.be.at.least(2)
    expect(
      new Date(String(ended.updated_at)).getTime() - new Date(String(ended.first_refused_at)).getTime(),
    ).to.be.at.least(1_000)
    expect(String(ended.error)).to.match(/^authorization expired/)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore)
    const lookup = (await (await fetch(`${f.base}/settlements?payer=${from}&nonce=${nonce}`)).json()) as Record<
      string,
      unknown
    >
    expect(lookup).to.include({ state: 'unsettleable' })
    expect(String(lookup.error)).to.match(/expired/)
    expect(
      await metric(
        f,
        `facilitator_unsettleable_settlements_total{network="eip155:${f.chain.chainId}",reason="expired"}`,
      ),
    ).to.equal(1)
    const alert = logLines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.msg.startsWith('settlement unsettleable'))
    expect(alert, 'an error-level log line').to.include({ level: 50 })
    // The same payment again: refused, naming the end state.
    expect((await f.post('settle', body)).body).to.include({ success: false })
  })
})
