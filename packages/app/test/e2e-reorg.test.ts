import { expect } from 'chai'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { canonicalReceipt, finalityViolations, reorgTo, snapshot } from './support/reorg.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * docs/ARCHITECTURE.md §5.6 on a real anvil and Postgres through the real app: a settlement whose block a reorg
 * replaced is back on the chain (within the 30 s), the payee paid exactly once, the journal naming the
 * transaction that exists; a final row so undone is a finality violation, logged and counted, and finished the same
 * way.
 */
describe('reorgs: a settlement whose block was replaced is finished again (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  const logLines: string[] = []
  before(async () => {
    // Recovery's own passes come late (10 s, rows younger than 35 s left alone): what finishes a reorged row here is
    // the finality watcher.
    f = await startTestFacilitator({ CONFIRMATIONS: '1', LOG_LEVEL: 'warn' }, {}, undefined, undefined, (line) =>
      logLines.push(line),
    )
  })
  after(() => f?.stop())

  /** The row of `txHash`'s authorization (found by any attempt), as Postgres has it. */
  const rowOfAuthorization = async (payer: string, nonce: string) =>
    (await f.rows()).find((r) => r.payer === payer.toLowerCase() && r.nonce === nonce.toLowerCase())

  /** Waits until the row's transaction is on the chain now, in the block the row names. */
  const backOnChain = (payer: string, nonce: string) =>
    waitFor(
      'the settlement back on the chain, journalled with its block',
      async () => {
        const row = await rowOfAuthorization(payer, nonce)
        if (row === undefined || !['confirmed', 'final'].includes(String(row.state))) return undefined
        const receipt = await canonicalReceipt(f.chain.rpcUrl, String(row.tx_hash))
        return receipt !== undefined &&
          receipt.status === '0x1' &&
          receipt.blockHash === row.block_hash &&
          BigInt(receipt.blockNumber) === BigInt(String(row.block_number))
          ? row
          : undefined
      },
      30_000,
    )

  it('a settle answered success, its block replaced: back on the chain within 30 s, paid once, journalled; a fresh payment settles', async () => {
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(f.chain.rpcUrl)
    const body = await f.payment({ payer: 0, value: 1_000_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: true })
    expect(settled.body.confirmations).to.be.a('number')
    const row = await rowOfAuthorization(from, nonce)
    expect(row).to.include({ state: 'confirmed', tx_hash: settled.body.txHash })
    expect(row?.block_hash).to.match(/^0x[0-9a-f]{64}$/)

    await reorgTo(f.chain.rpcUrl, before)
    expect(await canonicalReceipt(f.chain.rpcUrl, String(settled.body.txHash))).to.equal(undefined)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore)

    const again = await backOnChain(from, nonce)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 1_000_000n)
    // The lookup names the transaction on the chain now.
    const lookup = (await (await fetch(`${f.base}/settlements?payer=${from}&nonce=${nonce}`)).json()) as Record<
      string,
      unknown
    >
    expect(lookup.txHash).to.equal(again.tx_hash)
    expect(lookup.blockNumber).to.equal(Number(again.block_number))

    const fresh = await f.post('settle', await f.payment({ payer: 1, value: 2_000_000n }))
    expect(fresh.status).to.equal(200)
    expect(await canonicalReceipt(f.chain.rpcUrl, String(fresh.body.txHash))).to.not.equal(undefined)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 3_000_000n)
    // Deep enough (CONFIRMATIONS=1) once a block is on top: final, not a violation.
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the re-finished row final', async () =>
      (await rowOfAuthorization(from, nonce))?.state === 'final' ? true : undefined,
    )
    expect(await finalityViolations(f.base)).to.equal(0)
  })

  it('a reorg deeper than CONFIRMATIONS: the final row is a finality violation, logged and counted, and finished again', async () => {
    const paidBefore = await f.balanceOf(PAYEE)
    const violationsBefore = await finalityViolations(f.base)
    const before = await snapshot(f.chain.rpcUrl)
    const body = await f.payment({ payer: 2, value: 3_000_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(200)
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    await waitFor('the row final', async () =>
      (await rowOfAuthorization(from, nonce))?.state === 'final' ? true : undefined,
    )

    // Two blocks deep (its own and one on top) is more than CONFIRMATIONS = 1.
    await reorgTo(f.chain.rpcUrl, before)
    await waitFor('the violation counted', async () =>
      (await finalityViolations(f.base)) === violationsBefore + 1 ? true : undefined,
    )
    const logged = logLines.map(
      (line) => JSON.parse(line) as { level: number; msg: string; settlement?: { txHash?: string } },
    )
    const violation = logged.find((l) => l.msg.startsWith('finality violation'))
    expect(violation, 'an error-level log line').to.include({ level: 50 })
    expect(violation?.settlement?.txHash).to.equal(settled.body.txHash)
    await backOnChain(from, nonce)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 3_000_000n)
  })

  it("the new chain holds another transaction at the settlement's account nonce: signed again at a new nonce, paid once", async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(rpc)
    const body = await f.payment({ payer: 0, value: 500_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(200)
    const sent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [settled.body.txHash])) as { nonce: string }

    // The new chain: a zero-value transfer of the facilitator's account to itself at that nonce, then two more blocks.
    expect(await anvilRpc(rpc, 'evm_revert', [before])).to.equal(true)
    await anvilRpc(rpc, 'anvil_impersonateAccount', [facilitator])
    await anvilRpc(rpc, 'eth_sendTransaction', [
      { from: facilitator, to: facilitator, value: '0x0', nonce: sent.nonce },
    ])
    await anvilRpc(rpc, 'anvil_stopImpersonatingAccount', [facilitator])
    for (let i = 0; i < 2; i++) await anvilRpc(rpc, 'evm_mine')

    const again = await backOnChain(from, nonce)
    expect(again.tx_hash).to.not.equal(settled.body.txHash)
    const resent = (await anvilRpc(rpc, 'eth_getTransactionByHash', [again.tx_hash])) as { nonce: string }
    expect(BigInt(resent.nonce) > BigInt(sent.nonce)).to.equal(true)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 500_000n)
    const attempts = await f.db.knex('settlement_attempts').where({ settlement_id: again.id }).select('tx_hash')
    expect(attempts.map((a: { tx_hash: string }) => a.tx_hash)).to.deep.equal([settled.body.txHash, again.tx_hash])
  })

  it("a block holding six settles of the facilitator's key replaced while four more arrive: the nonce lane recovers, each paid once", async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address
    const paidBefore = await f.balanceOf(PAYEE)
    const count = async (tag: 'latest' | 'pending') =>
      BigInt((await anvilRpc(rpc, 'eth_getTransactionCount', [facilitator, tag])) as string)
    const before = await snapshot(rpc)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    const first = await Promise.all(
      [0, 1, 2, 0, 1, 2].map((payer, i) => f.payment({ payer, value: 100_000n + BigInt(i) })),
    )
    const answers = first.map((body) => f.post('settle', body))
    const mined = await count('latest')
    await waitFor('six transfers in the pool', async () => ((await count('pending')) === mined + 6n ? true : undefined))
    await anvilRpc(rpc, 'evm_mine')
    await anvilRpc(rpc, 'evm_setAutomine', [true])
    const settled = await Promise.all(answers)
    expect(settled.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200, 200])
    expect(new Set(settled.map((a) => a.body.blockNumber)).size).to.equal(1)

    await reorgTo(rpc, before)
    expect(await count('latest')).to.equal(mined)
    // More settles while the watcher finds the reorg: their nonces sit above the six the reorg took back.
    const more = await Promise.all([0, 1, 2, 0].map((payer, i) => f.payment({ payer, value: 200_000n + BigInt(i) })))
    const moreAnswers = await Promise.all(more.map((body) => f.post('settle', body)))
    expect(moreAnswers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200])

    for (const body of [...first, ...more]) {
      const { from, nonce } = body.paymentPayload.payload.authorization
      await backOnChain(from, nonce)
    }
    const total = [...first, ...more].reduce(
      (sum, body) => sum + BigInt(body.paymentPayload.payload.authorization.value),
      0n,
    )
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + total)
    // Nothing of the facilitator's account waits behind a gap, and a fresh payment settles.
    await waitFor('the pool empty', async () => ((await hasPendingTransaction(rpc, facilitator)) ? undefined : true))
    const fresh = await f.post('settle', await f.payment({ payer: 1, value: 300_000n }))
    expect(fresh.status).to.equal(200)
  })

  it('a new chain as high as the one the watcher checked (its head number unchanged, another block): found, finished again within 30 s', async () => {
    const paidBefore = await f.balanceOf(PAYEE)
    const before = await snapshot(f.chain.rpcUrl)
    const body = await f.payment({ payer: 1, value: 4_000_000n })
    const { from, nonce } = body.paymentPayload.payload.authorization
    expect((await f.post('settle', body)).body).to.include({ success: true })
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    // Final: the watcher checked the head one block above the settlement's.
    await waitFor('the row final', async () =>
      (await rowOfAuthorization(from, nonce))?.state === 'final' ? true : undefined,
    )
    const checked = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber')) as string)
    // Two blocks replace the two since the snapshot: the head's number is the one checked. Nothing else is sent.
    expect(await reorgTo(f.chain.rpcUrl, before, 2)).to.equal(checked)
    await backOnChain(from, nonce)
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 4_000_000n)
  })
})
