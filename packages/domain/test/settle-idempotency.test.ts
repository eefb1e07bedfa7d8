import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { settlePayment, type SettleOutcome } from '@x402-facilitator/domain'
import { PAYER, makeDeps, receiptFor, validRequest, nextAnswerId, withEvm, type TestDeps } from './fakes.js'
import { until } from './until.js'

const withKey = (idempotencyKey: string, requestHash: string) => ({
  requirementsRecord: {},
  answerId: nextAnswerId(),
  idempotencyKey,
  requestHash,
})
const run = async (
  d: { deps: TestDeps },
  options: ReturnType<typeof withKey>,
  request = validRequest(),
): Promise<SettleOutcome> => {
  const result = await settlePayment(request, options)(withEvm(d.deps))()
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}

/** Settle deps whose clock counts the polls of a settle waiting for a row in flight. */
const countingPolls = (deps: TestDeps) => {
  const counted = {
    polls: 0,
    deps: {
      ...deps,
      clock: {
        ...deps.clock,
        sleep: (ms: number) => {
          counted.polls++
          return deps.clock.sleep(ms)
        },
      },
    },
  }
  return counted
}

describe('settlePayment with an Idempotency-Key (docs/ARCHITECTURE.md §5.2)', () => {
  it('a retry with the same key and body gets the stored outcome, marked as a replay; nothing is sent twice', async () => {
    const d = makeDeps()
    const first = await run(d, withKey('k1', 'h1'))
    const retry = await run(d, withKey('k1', 'h1'))
    expect(first).to.include({ _tag: 'Settled', replayed: false })
    expect(retry).to.deep.equal({ ...first, replayed: true })
    expect(d.submitter.broadcasts).to.have.length(1)
  })

  it('the same key with another body → IdempotencyConflict', async () => {
    const d = makeDeps()
    await run(d, withKey('k1', 'h1'))
    expect(await run(d, withKey('k1', 'other'), validRequest({ nonce: `0x${'07'.repeat(32)}` }))).to.deep.include({
      _tag: 'IdempotencyConflict',
    })
  })

  it('a duplicate arriving while the first settle is in flight waits for it, then is refused naming its transaction: one success', async () => {
    const d = makeDeps()
    const releaseSends = d.submitter.holdSends()
    const first = run(d, withKey('k1', 'h1'))
    await until(() => [...d.journal.rows.values()][0]?.state === 'submitted', 'the first settle broadcasts')
    const retrying = countingPolls(d.deps)
    const retry = run(retrying, withKey('k1', 'h1'))
    await until(() => retrying.polls > 0, 'the retry waits for the row in flight')
    releaseSends()
    const txHash = d.submitter.broadcasts[0]!.txHash
    expect(await first).to.deep.include({ _tag: 'Settled', txHash, replayed: false })
    expect(await retry).to.deep.include({ _tag: 'Refused' })
    expect(JSON.stringify(await retry)).to.include(txHash)
    expect(d.submitter.broadcasts).to.have.length(1)
    // Once the success was answered, the same request again is its replay (an answer lost on the way).
    expect(await run(d, withKey('k1', 'h1'))).to.deep.include({ _tag: 'Settled', txHash, replayed: true })
  })

  it('two copies of one request at once: one wins the claim and the success, the other waits for it and is refused', async () => {
    const d = makeDeps()
    const releaseSends = d.submitter.holdSends()
    const both = countingPolls(d.deps)
    const outcomes = Promise.all([run(both, withKey('k1', 'h1')), run(both, withKey('k1', 'h1'))])
    await until(() => both.polls > 0, 'the one that lost the claim waits for the row in flight')
    releaseSends()
    const settled = (await outcomes).filter((o) => o._tag === 'Settled')
    expect(d.submitter.broadcasts).to.have.length(1)
    expect(settled).to.have.length(1)
    expect(settled[0]).to.deep.include({ replayed: false })
    expect((await outcomes).filter((o) => o._tag === 'Refused')).to.have.length(1)
  })

  it('without a key, a replay is refused (no second success for one transfer)', async () => {
    const d = makeDeps()
    await run(d, withKey('k1', 'h1'))
    const replay = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId() })(
      withEvm(d.deps),
    )()
    expect(E.isRight(replay) && replay.right._tag).to.equal('Refused')
  })

  it('a key older than the window is not replayed', async () => {
    const d = makeDeps()
    await run(d, withKey('k1', 'h1'))
    const row = [...d.journal.rows.values()][0]!
    d.journal.rows.set([...d.journal.rows.keys()][0]!, {
      ...row,
      createdAt: new Date(row.createdAt.getTime() - 25 * 3600 * 1000),
    })
    const later = await run(d, withKey('k1', 'h1'))
    expect(later).to.deep.include({ _tag: 'Refused' })
  })

  it("a retry that learns the receipt from the chain frees the 202's amount for the payer (rule 9)", async () => {
    const d = makeDeps()
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    const first = await run(d, withKey('k-202', 'h1'))
    expect(first._tag).to.equal('Pending')
    expect(d.exposure.inFlight(PAYER)).to.equal(1_000_000n)
    const sent = d.submitter.broadcasts[0]!
    d.submitter.mined.set(sent.txHash, receiptFor(sent, true))
    expect((await run(d, withKey('k-202', 'h1')))._tag).to.equal('Settled')
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })

  it('a retry waits no longer than the receipt timeout by the clock, however long each poll takes', async () => {
    const d = makeDeps()
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    await run(d, withKey('k-slow', 'h3'))
    // Each look at the clock finds 10 s gone (a slow node and journal behind every poll): the 30 s bound ends after 3.
    let now = d.deps.clock.now().getTime()
    const slow = countingPolls({ ...d.deps, clock: { ...d.deps.clock, now: () => new Date((now += 10_000)) } })
    expect((await run(slow, withKey('k-slow', 'h3')))._tag).to.equal('Pending')
    expect(slow.polls).to.be.within(1, 3)
  })

  it('a retry leaves a reverted receipt to recovery (which first asks whether a copy was mined)', async () => {
    const d = makeDeps()
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    await run(d, withKey('k-rev', 'h2'))
    const sent = d.submitter.broadcasts[0]!
    d.submitter.mined.set(sent.txHash, receiptFor(sent, false))
    const short = { deps: { ...d.deps, policy: { ...d.deps.policy, receiptTimeoutMs: 200 } } }
    expect((await run(short, withKey('k-rev', 'h2')))._tag).to.equal('Pending')
    expect([...d.journal.rows.values()][0]!.state).to.equal('submitted')
  })
})
