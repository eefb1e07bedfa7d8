import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { settlePayment, type MarkMined, type SettleOptions, type SettleOutcome } from '@x402-facilitator/domain'
import { PAYER, makeDeps, nextAnswerId, validRequest, neverFinal, withEvm, type TestDeps } from './fakes.js'

// docs/ARCHITECTURE.md §5.2: a first settle's own successful receipt takes the one success mark in the receipt's
// write.

const from = (extra: Partial<SettleOptions> = {}): SettleOptions => ({
  requirementsRecord: {},
  answerId: nextAnswerId(),
  caller: 'api:a',
  requestHash: 'digest-1',
  ...extra,
})
const run = async (deps: TestDeps, options: SettleOptions): Promise<SettleOutcome> => {
  const result = await settlePayment(validRequest(), options)(withEvm(deps))()
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}

describe("a first settle's success is marked in the receipt's write (docs/ARCHITECTURE.md §5.2)", () => {
  it('markMined takes the mark: no separate mark is written, and the success is answered', async () => {
    const d = makeDeps()
    d.journal.failing.add('markSuccessAnswered')
    const first = from()
    expect(await run(d.deps, first)).to.deep.include({ _tag: 'Settled', replayed: false })
    expect([...d.journal.rows.values()][0]).to.include({ state: 'confirmed', successAnsweredBy: first.answerId })
  })

  it('the receipt not written: the separate mark is taken instead and the success answered', async () => {
    const d = makeDeps()
    d.journal.failing.add('markMined')
    const first = from()
    expect(await run(d.deps, first)).to.deep.include({ _tag: 'Settled', replayed: false })
    expect([...d.journal.rows.values()][0]).to.include({ state: 'submitted', successAnsweredBy: first.answerId })
  })

  it('the receipt not written and the mark failing too: 202 with the transaction', async () => {
    const d = makeDeps()
    d.journal.failing.add('markMined')
    d.journal.failing.add('markSuccessAnswered')
    const outcome = await run(d.deps, from())
    expect(outcome).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: d.submitter.broadcasts[0]!.txHash })
  })

  it('another answer holds the mark already: refused, the mark kept', async () => {
    const d = makeDeps()
    const markedFirst = ((ref, receipt, answerId?: string) =>
      answerId === undefined
        ? d.journal.markMined(ref, receipt)
        : async () => (
            await d.journal.markSuccessAnswered(ref.id, 'the-replay')(),
            await d.journal.markMined(ref, receipt, answerId)()
          )) as MarkMined
    const deps: TestDeps = { ...d.deps, journal: { ...d.journal, markMined: markedFirst } }
    expect(await run(deps, from())).to.have.nested.property('refusal._tag', 'AlreadySettling')
    expect([...d.journal.rows.values()][0]).to.include({ state: 'confirmed', successAnsweredBy: 'the-replay' })
  })

  it('with SETTLE_WAIT_FOR=final the receipt does not take the mark: only a Settled answer marks', async () => {
    const d = makeDeps()
    const notFinal = from({ waitFor: 'final' })
    expect((await run({ ...d.deps, finality: neverFinal }, notFinal))._tag).to.equal('Pending')
    const row = [...d.journal.rows.values()][0]!
    expect(row.state).to.equal('confirmed')
    expect(row.successAnsweredBy).to.equal(undefined)
  })
})
