import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  EXPIRED_MARGIN_MS,
  RELEASED_WATCH_MS,
  recoverSettlements,
  settlePayment,
  type Hex,
  type RecoveryDeps,
  type Settlement,
  type SettleOptions,
  type TxHash,
} from '@x402-facilitator/domain'
import {
  NOW,
  NOW_S,
  makeDeps,
  receiptFor,
  testClock,
  validRequest,
  nextAnswerId,
  testRecoveryPolicy,
  withEvm,
} from './fakes.js'

const LATER = new Date(NOW.getTime() + 60_000)
const OTHER_TX: Hex = `0x${'cd'.repeat(32)}`

/** A settle left pending, its row then released (the node refused its transaction and said it held none of it). */
const releasedAfterPending = async (request = validRequest(), options: Partial<SettleOptions> = {}) => {
  const d = makeDeps()
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  const settled = await settlePayment(request, { requirementsRecord: {}, answerId: nextAnswerId(), ...options })(
    withEvm(d.deps),
  )()
  expect(E.isRight(settled) && settled.right._tag).to.equal('Pending')
  const row = () => [...d.journal.rows.values()][0]!
  const ref = { id: row().id, generation: row().generation }
  expect(await d.journal.markReleased(ref, 'submitted', 'the node refuses it')()).to.deep.equal(E.right('applied'))
  const attempt = row().attempts[0]!
  d.submitter.minedCount = attempt.accountNonce!
  const receiptReads: Array<ReadonlyArray<Hex>> = []
  const logReads = { count: 0 }
  let now = LATER
  const deps: RecoveryDeps = {
    ...d.deps,
    token: {
      ...d.token,
      authorizationEndedBy: (authorization) => {
        logReads.count++
        return d.token.authorizationEndedBy(authorization)
      },
    },
    submitter: {
      ...d.submitter,
      receiptOf: (hashes) => {
        receiptReads.push(hashes)
        return d.submitter.receiptOf(hashes)
      },
    },
    clock: { ...testClock, now: () => now },
    liveness: { isAlive: () => TE.right(false) },
    recovery: testRecoveryPolicy,
  }
  const recover = async () => {
    const report = await recoverSettlements(deps)()
    if (E.isLeft(report)) throw new Error(report.left.reason)
    return report.right
  }
  /** The clock past the row's `validBefore` by the margin: its authorization can no longer be used. */
  const expire = (r: Settlement = row()) => {
    now = new Date(Number(r.validBefore) * 1000 + EXPIRED_MARGIN_MS)
  }
  const at = (ms: number) => {
    now = new Date(ms)
  }
  return { d, row, attempt, recover, receiptReads, logReads, expire, at }
}

/** A settle of the sample request on `d`'s fakes (a retry, or another caller's), counting its receipt reads. */
const settleCountingReceipts = async (d: ReturnType<typeof makeDeps>, options: Partial<SettleOptions>) => {
  let receiptReads = 0
  const submitter = {
    ...d.submitter,
    receiptOf: (hashes: ReadonlyArray<TxHash>) => {
      receiptReads++
      return d.submitter.receiptOf(hashes)
    },
  }
  const result = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId(), ...options })(
    withEvm({ ...d.deps, submitter }),
  )()
  return { result, receiptReads }
}

describe('recovery judges released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5)', () => {
  it('unjudged while the mined nonce has not passed its attempt (no receipt read); then confirmed by its receipt', async () => {
    const { d, row, attempt, recover, receiptReads } = await releasedAfterPending()
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    expect((await recover()).outcomes).to.deep.equal({})
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt, 'not judged').to.equal(undefined)
    expect(receiptReads).to.deep.equal([])

    d.submitter.minedCount = attempt.accountNonce! + 1n
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
    expect(row()).to.include({ state: 'confirmed', txHash: attempt.txHash, blockNumber: 42n })
    expect(receiptReads).to.have.length(1)
    await recover()
    expect(receiptReads, 'a confirmed row is not judged again').to.have.length(1)
  })

  it('a reverted attempt, the authorization unused: watched until it expired, then judged once', async () => {
    const { d, row, attempt, recover, receiptReads, expire } = await releasedAfterPending()
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, false))
    d.submitter.minedCount = attempt.accountNonce! + 1n
    expect((await recover()).outcomes).to.deep.equal({})
    expect(row().watchEndedAt, 'a valid authorization may still be used').to.equal(undefined)
    expire()
    await recover()
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt).to.be.instanceOf(Date)
    const reads = receiptReads.length
    await recover()
    expect(receiptReads).to.have.length(reads)
  })

  it('no receipt of its attempts and none used the authorization: not final while a node may be behind', async () => {
    const { d, row, attempt, recover, logReads } = await releasedAfterPending()
    d.submitter.minedCount = attempt.accountNonce! + 1n
    await recover()
    expect(row().watchEndedAt, 'a "none" from a node behind is not final').to.equal(undefined)
    expect(logReads.count, "the token's logs are read only for an authorization it says is used").to.equal(0)

    // The node catches up: its receipt and the token's log now tell the attempt was mined.
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
    expect(row()).to.include({ state: 'confirmed', txHash: attempt.txHash })
  })

  it('an authorization valid for a day, its attempts passed and unused: the watch ends an hour after the release', async () => {
    const request = validRequest()
    const { authorization } = request.payload
    const { d, row, attempt, recover, at } = await releasedAfterPending({
      ...request,
      payload: { ...request.payload, authorization: { ...authorization, validBefore: NOW_S + 86_400n } },
    })
    d.submitter.minedCount = attempt.accountNonce! + 1n
    const releasedAt = row().updatedAt.getTime()
    at(releasedAt + RELEASED_WATCH_MS - 1)
    await recover()
    expect(row().watchEndedAt).to.equal(undefined)
    at(releasedAt + RELEASED_WATCH_MS)
    await recover()
    expect(row().watchEndedAt).to.be.instanceOf(Date)
  })

  it("the token's log names the attempt while its receipt is not readable yet: left, then confirmed", async () => {
    const { d, row, attempt, recover } = await releasedAfterPending()
    d.submitter.minedCount = attempt.accountNonce! + 1n
    d.token.usedByNonce.set(row().nonce, { txHash: attempt.txHash, blockNumber: 42n })
    d.token.state = { ...d.token.state, authorizationUsed: true }
    expect((await recover()).outcomes).to.deep.equal({})
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt).to.equal(undefined)
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
    expect(row()).to.include({ state: 'confirmed', txHash: attempt.txHash })
  })

  it('another transaction used the authorization, or it was cancelled: the watch ends at once', async () => {
    const used = await releasedAfterPending()
    used.d.submitter.minedCount = used.attempt.accountNonce! + 1n
    used.d.token.usedByNonce.set(used.row().nonce, { txHash: OTHER_TX, blockNumber: 43n })
    used.d.token.state = { ...used.d.token.state, authorizationUsed: true }
    used.d.submitter.mined.set(OTHER_TX, { ...receiptFor(used.attempt, true), txHash: OTHER_TX })
    expect((await used.recover()).outcomes).to.deep.equal({})
    expect(used.row()).to.include({ state: 'released' })
    expect(used.row().watchEndedAt).to.be.instanceOf(Date)

    const cancelled = await releasedAfterPending()
    cancelled.d.submitter.minedCount = cancelled.attempt.accountNonce! + 1n
    cancelled.d.token.cancelledBy = { txHash: OTHER_TX, blockNumber: 43n }
    cancelled.d.token.state = { ...cancelled.d.token.state, authorizationUsed: true }
    await cancelled.recover()
    expect(cancelled.row().watchEndedAt).to.be.instanceOf(Date)
  })

  it("an earlier claim's attempt mined after a retry took the row back and released it unsigned: confirmed", async () => {
    const { d, row, attempt, recover } = await releasedAfterPending()
    const first = row()
    const again = await d.journal.claim({ ...first, requirements: {} })()
    expect(E.isRight(again) && again.right._tag).to.equal('Claimed')
    const ref = { id: row().id, generation: row().generation }
    expect(ref.generation).to.equal(first.generation + 1)
    expect(await d.journal.markReleased(ref, 'claimed', 'its signing failed')()).to.deep.equal(E.right('applied'))
    expect(row().attempts).to.deep.equal([])

    // The first claim's transaction is mined: the token's log names it.
    d.submitter.minedCount = attempt.accountNonce! + 1n
    d.token.usedByNonce.set(first.nonce, { txHash: attempt.txHash, blockNumber: 42n })
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
    expect(row()).to.include({ state: 'confirmed', txHash: attempt.txHash, generation: ref.generation })
  })

  it("the caller's retry, its authorization used by the row's own attempt before a pass judged it: its success", async () => {
    const keyed = { idempotencyKey: 'retry-after-release', requestHash: 'digest-of-the-request' }
    const { d, row, attempt } = await releasedAfterPending(validRequest(), keyed)
    // The attempt was mined after all: the nonce passed, the authorization used by it.
    d.submitter.minedCount = attempt.accountNonce! + 1n
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.token.usedByNonce.set(row().nonce, { txHash: attempt.txHash, blockNumber: 42n })
    const broadcasts = d.submitter.broadcasts.length

    const { result: retry } = await settleCountingReceipts(d, keyed)
    expect(E.isRight(retry) && retry.right).to.deep.include({ _tag: 'Settled', txHash: attempt.txHash })
    expect(row()).to.include({ state: 'confirmed', txHash: attempt.txHash })
    expect(d.submitter.broadcasts).to.have.length(broadcasts)
  })

  it('a retry on a row judged already (used by another transaction) is refused with no receipt read', async () => {
    const keyed = { idempotencyKey: 'retry-after-judged', requestHash: 'digest-of-the-request' }
    const { d, row, attempt, recover } = await releasedAfterPending(validRequest(), keyed)
    d.submitter.minedCount = attempt.accountNonce! + 1n
    d.token.usedByNonce.set(row().nonce, { txHash: OTHER_TX, blockNumber: 43n })
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.submitter.mined.set(OTHER_TX, { ...receiptFor(attempt, true), txHash: OTHER_TX })
    await recover()
    expect(row().watchEndedAt).to.be.instanceOf(Date)
    const { result: retry, receiptReads } = await settleCountingReceipts(d, keyed)
    expect(E.isRight(retry) && retry.right._tag).to.equal('Refused')
    expect(row().state).to.equal('released')
    expect(receiptReads).to.equal(0)
  })

  it("another request with the row's authorization is refused with no chain read for it (only a retry judges)", async () => {
    const keyed = { idempotencyKey: 'the-first-caller', requestHash: 'digest-of-the-request' }
    const { d, row, attempt } = await releasedAfterPending(validRequest(), keyed)
    d.submitter.minedCount = attempt.accountNonce! + 1n
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    d.token.state = { ...d.token.state, authorizationUsed: true }
    const other = { idempotencyKey: 'someone-else', requestHash: 'digest-of-the-request' }
    const { result: sent, receiptReads } = await settleCountingReceipts(d, other)
    expect(E.isRight(sent) && sent.right._tag).to.equal('Refused')
    expect(row().state, 'left to recovery').to.equal('released')
    expect(receiptReads).to.equal(0)
  })

  it('the chain unreachable: the row is left as it is, judged at a later pass', async () => {
    const { d, row, attempt, recover } = await releasedAfterPending()
    d.submitter.mined.set(attempt.txHash, receiptFor(attempt, true))
    d.submitter.minedCount = attempt.accountNonce! + 1n
    d.submitter.down = true
    await recover()
    expect(row().state).to.equal('released')
    expect(row().watchEndedAt, 'not judged').to.equal(undefined)
    d.submitter.down = false
    expect((await recover()).outcomes).to.deep.equal({ 'mined-after-release': 1 })
  })
})
