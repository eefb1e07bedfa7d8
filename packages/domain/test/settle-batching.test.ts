import { expect } from 'chai'
import { settlePayment } from '@x402-facilitator/domain'
import { batched, nonce, options, outcomes, settleMany } from './batching-steps.js'
import { validRequest, withEvm } from './fakes.js'
import { until } from './until.js'

describe('settlePayment with batches (docs/ARCHITECTURE.md §5.7) on in-memory ports', () => {
  it('an idle facilitator sends a lone payment at once, in its own transaction', async () => {
    const d = batched(10)
    const [only] = outcomes(await settleMany(d, 1))
    expect(only!._tag).to.equal('Settled')
    expect(d.submitter.batches).to.deep.equal([])
    expect(d.submitter.broadcasts).to.have.length(1)
  })

  it('while a transaction of ours is in flight, later payments wait for each other (at most the window) and go together', async () => {
    const d = batched(10, 50)
    const release = d.submitter.holdSends()
    const first = settleMany(d, 1)
    await until(() => d.submitter.broadcasts.length === 1, 'the first broadcast')
    const rest = Promise.all(
      [5, 6, 7].map((n) => settlePayment(validRequest({ nonce: nonce(n) }), options)(withEvm(d.deps))()),
    )
    await until(() => d.queued() === 4, 'the three later payments queued')
    // The window is timed from the oldest's arrival: one millisecond short of it, they still wait.
    d.clock.advance(49)
    expect(d.clock.pendingTimers()).to.equal(1)
    d.clock.advance(1)
    expect(d.clock.pendingTimers()).to.equal(0)
    await until(() => d.submitter.broadcasts.length === 2, 'the batch broadcast')
    expect(d.submitter.batches).to.deep.equal([3])
    release()
    expect(outcomes([...(await first), ...(await rest)]).every((r) => r._tag === 'Settled')).to.equal(true)
  })

  it('payments arriving while a transaction is being signed and recorded go together, at most maxItems a batch, each paid once', async () => {
    const d = batched(4)
    const results = outcomes(await settleMany(d, 12))
    expect(results.every((r) => r._tag === 'Settled')).to.equal(true)
    const transactions = d.submitter.broadcasts.length
    expect(transactions).to.be.lessThan(12)
    expect(d.submitter.batches.every((size) => size >= 2 && size <= 4)).to.equal(true)
    const lone = transactions - d.submitter.batches.length
    expect(lone + d.submitter.batches.reduce((a, b) => a + b, 0)).to.equal(12)
    const rows = [...d.journal.rows.values()]
    expect(rows.map((r) => r.state)).to.deep.equal(Array(12).fill('confirmed'))
    // Each answer names its own row's transaction; a batch's rows share it, each at its own index.
    for (const [n, result] of results.entries()) {
      const row = rows.find((r) => r.nonce === nonce(n))!
      expect(result._tag === 'Settled' && result.txHash).to.equal(row.txHash)
    }
    const indexes = rows
      .filter((r) => r.attempts[0]!.batchIndex !== undefined)
      .map((r) => `${r.txHash}:${r.attempts[0]!.batchIndex}`)
    expect(new Set(indexes).size).to.equal(indexes.length)
  })
})
