import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  makeInMemoryPayerExposure,
  recoverSettlements,
  settlePayment,
  type EvmAddress as Address,
  type Hex,
  type RecoveryDeps,
  type Settlement,
} from '@x402-facilitator/domain'
import {
  NOW,
  makeDeps,
  receiptFor,
  testClock,
  validRequest,
  nextAnswerId,
  testRecoveryPolicy,
  withEvm,
} from './fakes.js'

const OTHER_REPLICA: Address = `0x${'cc'.repeat(20)}`
const LATER = new Date(NOW.getTime() + 60_000)
const USED_BY = { txHash: `0x${'c0'.repeat(32)}` as Hex, blockNumber: 43n, blockHash: `0x${'c1'.repeat(32)}` as Hex }

/** A settle left pending (broadcast, no receipt), then recovery a minute later. */
const setup = async (options: { alive?: boolean } = {}) => {
  const d = makeDeps()
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  const settled = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId() })(
    withEvm(d.deps),
  )()
  expect(E.isRight(settled) && settled.right._tag).to.equal('Pending')
  const alive = new Set<string>(options.alive ? [OTHER_REPLICA] : [])
  const deps: RecoveryDeps = {
    ...d.deps,
    clock: { ...testClock, now: () => LATER },
    liveness: { isAlive: (owner) => TE.right(alive.has(owner)) },
    recovery: testRecoveryPolicy,
  }
  const row = () => [...d.journal.rows.values()][0]!
  const recover = async () => {
    const report = await recoverSettlements(deps)()
    if (E.isLeft(report)) throw new Error(report.left.reason)
    return report.right
  }
  return { d, row, recover, deps }
}

const setRow = (d: ReturnType<typeof makeDeps>, row: Settlement) =>
  d.journal.rows.set([...d.journal.rows.keys()][0]!, row)

describe('recoverSettlements (docs/ARCHITECTURE.md §5.5)', () => {
  it('a receipt for the attempt → the row is confirmed with its block', async () => {
    const { d, row, recover } = await setup()
    const attempt = row().attempts[0]!
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    d.submitter.minedCount = 1n
    expect((await recover()).outcomes).to.deep.equal({ mined: 1 })
    expect(row()).to.include({ state: 'confirmed', blockNumber: 42n })
  })

  it("a pending settle's amount counts until recovery sees its row end; a row met in flight after a restart counts once", async () => {
    const { d, row, recover } = await setup()
    const payer = row().payer
    expect(d.exposure.inFlight(payer)).to.equal(row().value)
    d.submitter.minedCount = 0n
    await recover()
    expect(d.exposure.inFlight(payer), 'held once, not twice').to.equal(row().value)
    const attempt = row().attempts[0]!
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    d.submitter.minedCount = 1n
    await recover()
    expect(d.exposure.inFlight(payer)).to.equal(0n)

    const restarted = makeInMemoryPayerExposure()
    const after = await setup()
    const recoverAfterRestart = async () => {
      const report = await recoverSettlements({ ...after.deps, exposure: restarted })()
      if (E.isLeft(report)) throw new Error(report.left.reason)
    }
    await recoverAfterRestart()
    await recoverAfterRestart()
    expect(restarted.inFlight(after.row().payer)).to.equal(after.row().value)
  })

  it('a kept amount whose row ended out of sight (released by another, finished elsewhere) stops counting at the next pass', async () => {
    const { d, row, recover } = await setup()
    const payer = row().payer
    expect(d.exposure.inFlight(payer)).to.equal(row().value)
    // The row is released behind this replica's back (a fenced write whose answer was lost): no pass meets it
    // unfinished.
    setRow(d, { ...row(), state: 'released', attempts: [] })
    await recover()
    expect(d.exposure.inFlight(payer)).to.equal(0n)
    expect(d.exposure.kept()).to.deep.equal([])
  })

  it('a reverted receipt → the row is reverted', async () => {
    const { d, row, recover } = await setup()
    const attempt = row().attempts[0]!
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, false))
    d.submitter.minedCount = 1n
    await recover()
    expect(row().state).to.equal('reverted')
  })

  it('unmined past the replacement delay → a new attempt at the same nonce with raised fees, broadcast', async () => {
    const { d, row, recover } = await setup()
    expect((await recover()).outcomes).to.deep.equal({ replaced: 1 })
    const [first, second] = row().attempts
    expect(row().attempts).to.have.length(2)
    expect(second!.accountNonce).to.equal(first!.accountNonce)
    expect(second!.maxFeePerGas! * 10n >= first!.maxFeePerGas! * 11n).to.equal(true)
    expect(d.submitter.rebroadcasts).to.deep.equal([second!.raw])
  })

  it('unmined past the replacement delay, fees at the cap → the latest attempt re-sent as it is, on every pass; no new attempt', async () => {
    const { d, row, recover } = await setup()
    d.submitter.atFeeCap = true
    const stored = row().attempts
    for (let pass = 1; pass <= 2; pass++) expect((await recover()).outcomes).to.deep.equal({ rebroadcast: 1 })
    expect(row().attempts).to.deep.equal(stored)
    expect(d.submitter.rebroadcasts).to.deep.equal([stored[0]!.raw, stored[0]!.raw])
  })

  it('whichever attempt is mined settles the row', async () => {
    const { d, row, recover } = await setup()
    await recover()
    const replacement = row().attempts[1]!
    d.submitter.mined.set(replacement.txHash, receiptFor(replacement, true))
    d.submitter.minedCount = 1n
    await recover()
    expect(row()).to.include({ state: 'confirmed', txHash: replacement.txHash })
  })

  it('a young attempt (dropped by the node) is re-sent from its stored raw bytes', async () => {
    const { d, row, recover } = await setup()
    setRow(d, { ...row(), attempts: row().attempts.map((a) => ({ ...a, sentAt: new Date(LATER.getTime() - 5_000) })) })
    expect((await recover()).outcomes).to.deep.equal({ rebroadcast: 1 })
    expect(d.submitter.rebroadcasts).to.deep.equal([row().attempts[0]!.raw])
  })

  it('the account nonce consumed by another transaction, authorization unused → released', async () => {
    const { d, row, recover } = await setup()
    d.submitter.minedCount = 5n
    expect((await recover()).outcomes).to.deep.equal({ 'released-nonce-consumed': 1 })
    expect(row().state).to.equal('released')
  })

  it('a row a reorg sent back, its nonce taken by another transaction, authorization unused → signed again at a new nonce, recorded, sent', async () => {
    const { d, row, recover } = await setup()
    const first = row().attempts[0]!
    setRow(d, { ...row(), reorgedAt: LATER })
    d.submitter.minedCount = 5n
    d.submitter.nextNonce = 5n
    expect((await recover()).outcomes).to.deep.equal({ resigned: 1 })
    expect(row().state).to.equal('submitted')
    expect(row().attempts.map((a) => a.accountNonce)).to.deep.equal([first.accountNonce, 5n])
    expect(d.submitter.broadcasts.at(-1)?.accountNonce).to.equal(5n)
    expect(d.submitter.preparedGas.at(-1), 'its gas limit from a fresh trial').to.equal(61_234n)
    // Still the payer's amount in flight; once the new attempt is mined, the row is confirmed by it.
    expect(d.exposure.inFlight(row().payer)).to.equal(row().value)
    d.submitter.mined.set(row().attempts[1]!.txHash, receiptFor(row().attempts[1]!, true))
    d.submitter.minedCount = 6n
    expect((await recover()).outcomes).to.deep.equal({ mined: 1 })
    expect(row()).to.include({ state: 'confirmed', txHash: row().attempts[1]!.txHash })
  })

  it("a row confirmed by an earlier claim's transaction, then reorged (no attempt of its own claim): the token decides, never left waiting", async () => {
    // Used: that transaction was mined again → confirmed naming it.
    const used = await setup()
    setRow(used.d, { ...used.row(), attempts: [], txHash: undefined, reorgedAt: LATER })
    used.d.token.state = { ...used.d.token.state, authorizationUsed: true }
    used.d.token.usedBy = USED_BY
    expect((await used.recover()).outcomes).to.deep.equal({ 'settled-elsewhere': 1 })
    expect(used.row()).to.deep.include({ state: 'confirmed', txHash: USED_BY.txHash })
    // Unused: that transaction is gone → signed again at a new nonce, as its settle was answered success.
    const gone = await setup()
    setRow(gone.d, { ...gone.row(), attempts: [], txHash: undefined, reorgedAt: LATER })
    gone.d.submitter.nextNonce = 7n
    expect((await gone.recover()).outcomes).to.deep.equal({ resigned: 1 })
    expect(gone.row().state).to.equal('submitted')
    expect(gone.row().attempts.map((a) => a.accountNonce)).to.deep.equal([7n])
    expect(gone.d.submitter.broadcasts.at(-1)?.accountNonce).to.equal(7n)
  })

  for (const [payerHasCode, sent] of [
    [false, `0x${'33'.repeat(64)}1c`],
    [true, `0x${'33'.repeat(64)}01`],
  ] as const) {
    it(`a reorged row stored with v 0/1 (before v was mapped at verify), payer ${payerHasCode ? 'with code: re-signed with its bytes verbatim' : 'without code: re-signed with v 27/28'}`, async () => {
      const { d, row, recover } = await setup()
      setRow(d, { ...row(), signature: `0x${'33'.repeat(64)}01`, reorgedAt: LATER })
      d.token.payerHasCode = payerHasCode
      d.submitter.minedCount = 5n
      d.submitter.nextNonce = 5n
      expect((await recover()).outcomes).to.deep.equal({ resigned: 1 })
      expect(d.submitter.preparedSignatures.at(-1)).to.equal(sent)
    })
  }

  it('a reorged row whose transfer would now revert (its trial) is not signed again: no gas, the refusal counted, it waits', async () => {
    const { d, row, recover } = await setup()
    setRow(d, { ...row(), reorgedAt: LATER })
    d.submitter.minedCount = 5n
    d.submitter.nextNonce = 5n
    d.token.transfer = {
      _tag: 'WouldRevert',
      paused: true,
      payerBlacklisted: false,
      payeeBlacklisted: false,
      reason: 'Pausable: paused',
    }
    const prepared = d.submitter.preparedGas.length
    expect((await recover()).outcomes).to.deep.equal({ refused: 1 })
    expect(d.submitter.preparedGas).to.have.length(prepared)
    expect(row()).to.deep.include({ state: 'submitted', refusals: 1, error: 'the token is paused' })
    expect(row().attempts).to.have.length(1)
  })

  it("another replica's reorged row whose nonce was taken waits for its owner (only its key signs)", async () => {
    const { d, row, recover } = await setup()
    setRow(d, { ...row(), reorgedAt: LATER, owner: OTHER_REPLICA })
    d.submitter.minedCount = 5n
    expect((await recover()).outcomes).to.deep.equal({ waiting: 1 })
    expect(row().state).to.equal('submitted')
  })

  it('the authorization used on-chain by someone else → confirmed with what the chain says', async () => {
    const { d, row, recover } = await setup()
    d.submitter.minedCount = 5n
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.token.usedBy = USED_BY
    await recover()
    expect(row()).to.deep.include({ state: 'confirmed', txHash: USED_BY.txHash, blockNumber: USED_BY.blockNumber })
    expect(d.token.searchedFromClaims, "the logs searched back to the row's claim").to.deep.equal([row().createdAt])
  })

  it('an abandoned claim (no attempt, 30 s) is released; a young one is left alone', async () => {
    const { d, row, recover } = await setup()
    setRow(d, { ...row(), state: 'claimed', attempts: [], updatedAt: new Date(LATER.getTime() - 20_000) })
    expect((await recover()).outcomes).to.deep.equal({ waiting: 1 })
    setRow(d, { ...row(), updatedAt: new Date(LATER.getTime() - 31_000) })
    expect((await recover()).outcomes).to.deep.equal({ 'released-abandoned-claim': 1 })
    expect(row().state).to.equal('released')
  })

  it("another replica's rows are left to it while it lives, finished by us once it is gone (no replacement: not our key)", async () => {
    const alive = await setup({ alive: true })
    setRow(alive.d, { ...alive.row(), owner: OTHER_REPLICA })
    expect((await alive.recover()).outcomes).to.deep.equal({ 'skipped-owner-alive': 1 })

    const dead = await setup({ alive: false })
    setRow(dead.d, { ...dead.row(), owner: OTHER_REPLICA })
    expect((await dead.recover()).outcomes).to.deep.equal({ rebroadcast: 1 })
    expect(dead.row().attempts).to.have.length(1)
  })

  it("a nonce of ours that no journalled attempt holds is filled, told every nonce this replica's submitted rows hold", async () => {
    const { d, row, recover } = await setup()
    // A crash between signing nonce 0 and recording it: the recorded attempt sits at nonce 1 and can never be mined.
    setRow(d, { ...row(), attempts: row().attempts.map((a) => ({ ...a, accountNonce: 1n })) })
    // Recovery runs in the process after the crash: it handed out no nonce.
    d.submitter.restart()
    const report = await recover()
    expect(report.noncesFilled).to.deep.equal([0n])
    expect(d.submitter.gapFills).to.deep.equal([[1n]])
    // Mined: its nonce is still told (a reorg may send a confirmed row back), and below the mined count nothing is
    // filled.
    d.submitter.mined.set(row().attempts[0]!.txHash, receiptFor(row().attempts[0]!, true))
    d.submitter.minedCount = 2n
    expect((await recover()).noncesFilled).to.deep.equal([])
    expect(d.submitter.gapFills).to.deep.equal([[1n], [1n]])
  })

  it('a pass reads every unfinished row, a page at a time: rows of a live replica never hide the rows behind them', async () => {
    const { d, row, deps } = await setup({ alive: true })
    const old = (minutes: number) => new Date(LATER.getTime() - 3_600_000 + minutes * 60_000)
    // Five rows of a live replica first (oldest), then one of ours that is ready to be confirmed.
    for (let i = 0; i < 5; i++) {
      d.journal.rows.set(`live-${i}`, {
        ...row(),
        id: String(10 + i),
        nonce: `0x${String(i).padStart(64, '0')}`,
        owner: OTHER_REPLICA,
        updatedAt: old(i),
      })
    }
    setRow(d, { ...row(), updatedAt: old(10) })
    d.submitter.mined.set(row().attempts[0]!.txHash, receiptFor(row().attempts[0]!, true))
    d.submitter.minedCount = 1n
    let livenessAsked = 0
    const report = await recoverSettlements({
      ...deps,
      recovery: { ...deps.recovery, batchSize: 2 },
      liveness: {
        isAlive: (owner) => {
          livenessAsked++
          return deps.liveness.isAlive(owner)
        },
      },
    })()
    expect(E.isRight(report) && report.right.outcomes).to.deep.equal({ 'skipped-owner-alive': 5, mined: 1 })
    expect(livenessAsked, 'once per owner and pass').to.equal(1)
    expect(row().state).to.equal('confirmed')
  })

  it('the chain down → the row is counted as failed and left for the next pass', async () => {
    const { d, row, recover } = await setup()
    d.submitter.down = true
    expect((await recover()).outcomes).to.deep.equal({ failed: 1 })
    expect(row().state).to.equal('submitted')
  })
})
