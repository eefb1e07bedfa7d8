import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { settlePayment, type SettleOptions, type SettleOutcome } from '@x402-facilitator/domain'
import { PAYER, makeDeps, nextAnswerId, receiptFor, validRequest, neverFinal, withEvm, type TestDeps } from './fakes.js'
import { BLOCK_42 } from './sample-values.js'

// Issue 23 item 15, docs/ARCHITECTURE.md §5.2: exactly one `success` per authorization; a caller's keyless retry may
// have it.

const from = (caller: string, extra: Partial<SettleOptions> = {}): SettleOptions => ({
  requirementsRecord: {},
  answerId: nextAnswerId(),
  caller,
  requestHash: 'digest-1',
  ...extra,
})
const run = async (deps: TestDeps, options: SettleOptions, request = validRequest()): Promise<SettleOutcome> => {
  const result = await settlePayment(request, options)(withEvm(deps))()
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}

/** The first settle answered 202: its transaction was broadcast and not yet mined. */
const pendingFirst = async (options = from('api:a')) => {
  const d = makeDeps()
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  expect((await run(d.deps, options))._tag).to.equal('Pending')
  const sent = d.submitter.broadcasts[0]!
  const mine = () => d.submitter.mined.set(sent.txHash, receiptFor(sent, true))
  const row = () => [...d.journal.rows.values()][0]!
  return { d, sent, mine, row }
}

describe('one success per payment: the caller’s keyless retry after a 202 (docs/ARCHITECTURE.md §5.2)', () => {
  it('the block mined, the same caller retries the same request: success, marked; a third call and another caller are refused', async () => {
    const { d, sent, mine, row } = await pendingFirst()
    mine()
    const retry = from('api:a')
    expect(await run(d.deps, retry)).to.deep.equal({
      _tag: 'Settled',
      payer: PAYER,
      txHash: sent.txHash,
      blockNumber: 42n,
      blockHash: BLOCK_42,
      replayed: false,
      recordedAt: row().createdAt,
    })
    expect(row()).to.include({ state: 'confirmed', successAnsweredBy: retry.answerId })
    expect(await run(d.deps, from('api:a'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
    expect(await run(d.deps, from('api:b'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
    expect(d.submitter.broadcasts).to.have.length(1)
  })

  it('another caller, or the same caller with another request, is refused even before any success', async () => {
    const { d, mine } = await pendingFirst()
    mine()
    expect(await run(d.deps, from('api:b'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
    expect(await run(d.deps, from('api:a', { requestHash: 'digest-2' }))).to.have.nested.property(
      'refusal._tag',
      'AlreadySettling',
    )
    expect((await run(d.deps, from('api:a')))._tag).to.equal('Settled')
  })

  it('a retry arriving before the block waits for it (the chain and the amount it holds would refuse it anew)', async () => {
    const { d, mine } = await pendingFirst()
    // The payer's balance is all in flight: verify alone would answer insufficient_funds.
    d.token.state = { ...d.token.state, balance: 1_000_000n }
    let polls = 0
    const deps = {
      ...d.deps,
      clock: {
        ...d.deps.clock,
        sleep: (ms: number) => {
          if (++polls === 2) mine()
          return d.deps.clock.sleep(ms)
        },
      },
    }
    expect(await run(deps, from('api:a'))).to.deep.include({ _tag: 'Settled', replayed: false })
    expect(polls).to.be.at.least(2)
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })

  it("the keyless retry waits no longer than the request's maxTimeoutSeconds when that is shorter than the receipt timeout", async () => {
    const { d } = await pendingFirst()
    let now = d.deps.clock.now().getTime()
    let polls = 0
    const deps = {
      ...d.deps,
      clock: {
        ...d.deps.clock,
        now: () => new Date((now += 10_000)),
        sleep: (ms: number) => {
          polls++
          return d.deps.clock.sleep(ms)
        },
      },
    }
    const request = validRequest()
    const short = { ...request, requirements: { ...request.requirements, maxTimeoutSeconds: 15 } }
    // The digest names the request: the test keeps the first one's, as only maxTimeoutSeconds matters here.
    expect((await run(deps, from('api:a'), short))._tag).to.equal('Pending')
    expect(polls).to.be.within(1, 2)
  })

  it('two retries at once: exactly one success', async () => {
    const { d, mine } = await pendingFirst()
    mine()
    const outcomes = await Promise.all([
      run(d.deps, from('api:a')),
      run(d.deps, from('api:a')),
      run(d.deps, from('api:a')),
    ])
    expect(outcomes.filter((o) => o._tag === 'Settled')).to.have.length(1)
    expect(outcomes.filter((o) => o._tag === 'Refused')).to.have.length(2)
  })

  it("a first settle's own success marks the row: the same caller's keyless repeat is refused", async () => {
    const d = makeDeps()
    const first = from('api:a')
    expect((await run(d.deps, first))._tag).to.equal('Settled')
    expect([...d.journal.rows.values()][0]!.successAnsweredBy).to.equal(first.answerId)
    expect(await run(d.deps, from('api:a'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
  })

  it('an Idempotency-Key replay keeps returning the stored outcome after the row was marked; the keyed retry after a 202 marks it', async () => {
    const keyed = (answerId = nextAnswerId()) => from('api:a', { idempotencyKey: 'api:a:order-1', answerId })
    const { d, mine, row } = await pendingFirst(keyed())
    mine()
    const retry = keyed()
    // The 202 was no success: the retry's is the one, not a replay.
    expect(await run(d.deps, retry)).to.deep.include({ _tag: 'Settled', replayed: false })
    expect(row().successAnsweredBy).to.equal(retry.answerId)
    expect(await run(d.deps, keyed())).to.deep.include({ _tag: 'Settled', replayed: true })
    expect(await run(d.deps, from('api:a'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
  })

  it("the mark's answer lost (committed, then a timeout): the row says it is ours, success", async () => {
    const { d, mine } = await pendingFirst()
    mine()
    d.journal.loseAnswerOf.add('markSuccessAnswered')
    expect((await run(d.deps, from('api:a')))._tag).to.equal('Settled')
    expect(await run(d.deps, from('api:a'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
  })

  it('the journal down at the mark: 202 with the transaction, and a later retry has the success', async () => {
    const { d, sent, mine } = await pendingFirst()
    mine()
    d.journal.failing.add('markSuccessAnswered')
    expect(await run(d.deps, from('api:a'))).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: sent.txHash })
    d.journal.failing.clear()
    expect((await run(d.deps, from('api:a')))._tag).to.equal('Settled')
  })

  it('SETTLE_WAIT_FOR=final answering Pending (the row not final in time) marks nothing: the retry still has the success', async () => {
    const d = makeDeps()
    const notFinal = from('api:a', { waitFor: 'final' })
    expect((await run({ ...d.deps, finality: neverFinal }, notFinal))._tag).to.equal('Pending')
    expect([...d.journal.rows.values()][0]!.successAnsweredBy).to.equal(undefined)
    expect((await run(d.deps, from('api:a')))._tag).to.equal('Settled')
  })

  it('without a caller or a digest (not through HTTP) nothing is retried keyless', async () => {
    const { d, mine } = await pendingFirst(from('api:a'))
    mine()
    expect(await run(d.deps, { requirementsRecord: {}, answerId: nextAnswerId() })).to.have.nested.property(
      'refusal._tag',
      'AlreadySettling',
    )
  })
})
