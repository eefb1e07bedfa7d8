import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  recoverSettlements,
  settlePayment,
  type Hex,
  type RecoveryDeps,
  type Settlement,
} from '@x402-facilitator/domain'
import {
  NOW,
  makeDeps,
  nextAnswerId,
  receiptFor,
  testClock,
  validRequest,
  testRecoveryPolicy,
  withEvm,
} from './fakes.js'

const LATER = new Date(NOW.getTime() + 60_000)
const CANCEL = { txHash: `0x${'ca'.repeat(32)}` as Hex, blockNumber: 43n, blockHash: `0x${'cb'.repeat(32)}` as Hex }
const COPY = { txHash: `0x${'c0'.repeat(32)}` as Hex, blockNumber: 43n, blockHash: `0x${'c1'.repeat(32)}` as Hex }

/** A settle left pending (broadcast, no receipt), then recovery on a clock the test moves. */
const setup = async () => {
  const d = makeDeps()
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  const settled = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId() })(
    withEvm(d.deps),
  )()
  expect(E.isRight(settled) && settled.right._tag).to.equal('Pending')
  const clock = { now: LATER }
  const alerts: Array<{ end: string; reason: string }> = []
  const deps: RecoveryDeps = {
    ...d.deps,
    clock: { ...testClock, now: () => clock.now },
    liveness: { isAlive: () => TE.right(false) },
    recovery: { ...testRecoveryPolicy, minAgeMs: 0 },
    rowEnds: { ended: (_row, end, reason) => alerts.push({ end, reason }) },
  }
  const row = () => [...d.journal.rows.values()][0]!
  const setRow = (next: Settlement) => d.journal.rows.set([...d.journal.rows.keys()][0]!, next)
  const recover = async () => {
    const report = await recoverSettlements(deps)()
    if (E.isLeft(report)) throw new Error(report.left.reason)
    return report.right.outcomes
  }
  return { d, row, setRow, recover, clock, alerts }
}

describe('recovery: rows that end without our transfer (docs/ARCHITECTURE.md §5.5, §5.6)', () => {
  it('our nonce taken, the payer cancelled the authorization → cancelled (not settled elsewhere), alerted, its amount held while watched', async () => {
    const { d, row, recover, alerts } = await setup()
    d.submitter.minedCount = 5n
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.token.cancelledBy = CANCEL
    expect(await recover()).to.deep.equal({ cancelled: 1 })
    expect(row()).to.deep.include({
      state: 'cancelled',
      txHash: CANCEL.txHash,
      blockNumber: 43n,
      blockHash: CANCEL.blockHash,
    })
    expect(alerts).to.have.length(1)
    expect(alerts[0]).to.include({ end: 'cancelled' })
    expect(d.exposure.inFlight(row().payer)).to.equal(row().value)
  })

  it('our nonce taken, the authorization used by another transaction → confirmed naming it', async () => {
    const { d, row, recover, alerts } = await setup()
    d.submitter.minedCount = 5n
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.token.usedBy = COPY
    expect(await recover()).to.deep.equal({ 'settled-elsewhere': 1 })
    expect(row()).to.deep.include({ state: 'confirmed', txHash: COPY.txHash, blockNumber: 43n })
    expect(alerts).to.deep.equal([])
  })

  it('our nonce taken, the authorization used or cancelled with neither event in the blocks searched → cancelled, alerted, never confirmed', async () => {
    const { d, row, recover, alerts } = await setup()
    d.submitter.minedCount = 5n
    // authorizationState true, and no AuthorizationUsed nor AuthorizationCanceled log found (a use long ago).
    d.token.state = { ...d.token.state, authorizationUsed: true }
    expect(await recover()).to.deep.equal({ cancelled: 1 })
    expect(row().state).to.equal('cancelled')
    expect(row().error).to.match(/nothing proves the payee was paid/)
    expect(alerts.map((a) => a.end)).to.deep.equal(['cancelled'])
  })

  it('a Permit2 row: its nonce spent, no transfer of ours nor invalidation found → cancelled, never settled elsewhere', async () => {
    const { d, row, setRow, recover, alerts } = await setup()
    const spender = `0x${'40'.repeat(20)}` as Hex
    setRow({ ...row(), permit2: { scheme: 'exact', permitted: row().value, spender } })
    d.submitter.minedCount = 5n
    // Another payment (another token) spent the payer's Permit2 nonce: the bit is set, no event names this payment.
    d.token.state = { ...d.token.state, authorizationUsed: true }
    expect(await recover()).to.deep.equal({ cancelled: 1 })
    expect(row().state).to.equal('cancelled')
    expect(row().error).to.match(/Permit2 nonce spent by another payment/)
    expect(alerts.map((a) => a.end)).to.deep.equal(['cancelled'])
  })

  it('ours reverted because the payer cancelled first → cancelled, naming the cancellation', async () => {
    const { d, row, recover } = await setup()
    const attempt = row().attempts[0]!
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, false))
    d.submitter.minedCount = 1n
    d.token.cancelledBy = CANCEL
    expect(await recover()).to.deep.equal({ cancelled: 1 })
    expect(row()).to.deep.include({ state: 'cancelled', txHash: CANCEL.txHash })
    expect(row().error).to.match(/cancelled by the payer.*reverted/)
  })

  it('ours reverted, nobody used or cancelled it → reverted, its amount held while its block is watched', async () => {
    const { d, row, recover } = await setup()
    const attempt = row().attempts[0]!
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, false))
    d.submitter.minedCount = 1n
    expect(await recover()).to.deep.equal({ reverted: 1 })
    expect(row().state).to.equal('reverted')
    expect(d.exposure.inFlight(row().payer)).to.equal(row().value)
  })

  it('a reorged row the token keeps refusing: counted, no trial during its backoff, unsettleable after the tries and the time', async () => {
    const { d, row, setRow, recover, clock, alerts } = await setup()
    setRow({ ...row(), reorgedAt: LATER, validBefore: 4_102_444_800n })
    d.submitter.minedCount = 5n
    d.token.transfer = {
      _tag: 'WouldRevert',
      paused: false,
      payerBlacklisted: false,
      payeeBlacklisted: false,
      reason: 'ERC20: transfer amount exceeds balance',
    }
    const trials = () => d.token.reads
    expect(await recover()).to.deep.equal({ refused: 1 })
    setRow({ ...row(), updatedAt: new Date(clock.now.getTime() - 1) })
    const afterFirst = trials()
    // Within the backoff: not even read.
    expect(await recover()).to.deep.equal({ waiting: 1 })
    expect(trials()).to.equal(afterFirst)
    for (const [waitMs, refusals] of [
      [1_000, 2],
      [2_000, 3],
      [4_000, 4],
    ] as const) {
      clock.now = new Date(clock.now.getTime() + waitMs)
      setRow({ ...row(), updatedAt: new Date(clock.now.getTime() - waitMs) })
      expect(await recover()).to.deep.equal({ refused: 1 })
      expect(row().refusals).to.equal(refusals)
    }
    // The tries are done, the time is not: funds may come back. Ten minutes on, it ends.
    clock.now = new Date(row().firstRefusedAt!.getTime() + 600_000)
    expect(await recover()).to.deep.equal({ unsettleable: 1 })
    expect(row().state).to.equal('unsettleable')
    expect(row().error).to.match(/^the transfer would revert: ERC20: transfer amount exceeds balance/)
    expect(alerts.map((a) => a.end)).to.deep.equal(['unsettleable'])
    expect(d.exposure.inFlight(row().payer)).to.equal(0n)
  })

  it('a reorged row whose authorization expired ends unsettleable after the tries alone', async () => {
    const { d, row, setRow, recover, clock } = await setup()
    setRow({ ...row(), reorgedAt: LATER })
    d.submitter.minedCount = 5n
    d.token.transfer = {
      _tag: 'WouldRevert',
      paused: false,
      payerBlacklisted: false,
      payeeBlacklisted: false,
      reason: 'FiatTokenV2: authorization is expired',
    }
    expect(await recover()).to.deep.equal({ refused: 1 })
    for (const outcome of ['refused', 'unsettleable'] as const) {
      clock.now = new Date(clock.now.getTime() + 60_000)
      expect(await recover()).to.deep.equal({ [outcome]: 1 })
    }
    expect(row().error).to.match(/^authorization expired/)
  })
})
