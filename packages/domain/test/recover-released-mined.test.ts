import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { recoverSettlements, settlePayment, type Hex, type RecoveryDeps } from '@x402-facilitator/domain'
import { NOW, makeDeps, receiptFor, testClock, validRequest, nextAnswerId, testRecoveryPolicy } from './fakes.js'

const LATER = new Date(NOW.getTime() + 60_000)

/** A settle left pending, its row then released (the node refused its transaction and said it held none of it). */
const releasedAfterPending = async () => {
  const d = makeDeps()
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  const settled = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId() })(d.deps)()
  expect(E.isRight(settled) && settled.right._tag).to.equal('Pending')
  const row = () => [...d.journal.rows.values()][0]!
  const ref = { id: row().id, generation: row().generation }
  expect(await d.journal.markReleased(ref, 'submitted', 'the node refuses it')()).to.deep.equal(E.right('applied'))
  const attempt = row().attempts[0]!
  d.submitter.minedCount = attempt.accountNonce
  const receiptReads: Array<ReadonlyArray<Hex>> = []
  const deps: RecoveryDeps = {
    ...d.deps,
    submitter: {
      ...d.submitter,
      receiptOf: (hashes) => {
        receiptReads.push(hashes)
        return d.submitter.receiptOf(hashes)
      },
    },
    clock: { ...testClock, now: () => LATER },
    liveness: { isAlive: () => TE.right(false) },
    recovery: testRecoveryPolicy,
  }
  const recover = async () => {
    const report = await recoverSettlements(deps)()
    if (E.isLeft(report)) throw new Error(report.left.reason)
    return report.right
  }
  return { d, row, attempt, recover, receiptReads }
}

describe('recovery judges released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5)', () => {
  it('unjudged while the mined nonce has not passed its attempt (no receipt read); then confirmed by its receipt', async () => {
    const { d, row, attempt, recover, receiptReads } = await releasedAfterPending()
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    expect((await recover()).outcomes).to.deep.equal({})
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt, 'not judged').to.equal(undefined)
    expect(receiptReads).to.deep.equal([])

    d.submitter.minedCount = attempt.accountNonce + 1n
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
    expect(row()).to.include({ state: 'confirmed', txHash: attempt.txHash, blockNumber: 42n })
    expect(receiptReads).to.have.length(1)
    await recover()
    expect(receiptReads, 'a confirmed row is not judged again').to.have.length(1)
  })

  it('a reverted attempt leaves the row released, judged once', async () => {
    const { d, row, attempt, recover, receiptReads } = await releasedAfterPending()
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, false))
    d.submitter.minedCount = attempt.accountNonce + 1n
    expect((await recover()).outcomes).to.deep.equal({})
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt).to.be.instanceOf(Date)
    await recover()
    expect(receiptReads).to.have.length(1)
  })

  it('another transaction took its nonce (no receipt of its attempts): released, judged once', async () => {
    const { d, row, attempt, recover, receiptReads } = await releasedAfterPending()
    d.submitter.minedCount = attempt.accountNonce + 1n
    await recover()
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt).to.be.instanceOf(Date)
    await recover()
    expect(receiptReads).to.have.length(1)
  })

  it('the chain unreachable: the row is left as it is, judged at a later pass', async () => {
    const { d, row, attempt, recover } = await releasedAfterPending()
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    d.submitter.minedCount = attempt.accountNonce + 1n
    d.submitter.down = true
    await recover()
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt, 'not judged').to.equal(undefined)
    d.submitter.down = false
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
  })
})
