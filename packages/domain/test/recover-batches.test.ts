import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  makePenaltyBox,
  recoverSettlements,
  settlePayment,
  type EvmAddress as Address,
  type Hex,
  type RecoveryDeps,
} from '@x402-facilitator/domain'
import { NOW, makeDeps, testClock, validRequest, nextAnswerId, testRecoveryPolicy, withEvm } from './fakes.js'

const LATER = new Date(NOW.getTime() + 60_000)
const nonce = (n: number): Hex => `0x${n.toString(16).padStart(64, 'd')}`

/** Payments batched and left pending (broadcast, no receipt), then recovery a minute later. */
const setup = async (extra: Partial<RecoveryDeps> = {}) => {
  const d = makeDeps({ maxItems: 10 })
  d.token.state = { balance: 1_000_000_000n, authorizationUsed: false }
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, n) =>
      settlePayment(validRequest({ nonce: nonce(n) }), { requirementsRecord: {}, answerId: nextAnswerId() })(
        withEvm(d.deps),
      )(),
    ),
  )
  expect(results.every((r) => E.isRight(r) && r.right._tag === 'Pending')).to.equal(true)
  expect(d.submitter.batches.length).to.be.greaterThan(0)
  const deps: RecoveryDeps = {
    ...d.deps,
    clock: { ...testClock, now: () => LATER },
    liveness: { isAlive: () => TE.right(false) },
    recovery: testRecoveryPolicy,
    ...extra,
  }
  const recover = async () => {
    const report = await recoverSettlements(deps)()
    if (E.isLeft(report)) throw new Error(report.left.reason)
    return report.right
  }
  const rows = () => [...d.journal.rows.values()]
  const batchRows = () => rows().filter((r) => r.attempts[0]!.batchIndex !== undefined)
  return { d, recover, rows, batchRows }
}

describe('recovery of settler batches (docs/ARCHITECTURE.md §5.5, §5.7)', () => {
  it('an unmined batch is replaced once for all its rows: one new attempt on each, at its index, broadcast once', async () => {
    const { d, recover, rows, batchRows } = await setup()
    const before = batchRows()
    const firstBatch = before[0]!.attempts[0]!.txHash
    await recover()
    const after = batchRows().filter((r) => r.attempts[0]!.txHash === firstBatch)
    expect(after.every((r) => r.attempts.length === 2)).to.equal(true)
    const replacement = after[0]!.attempts[1]!.txHash
    expect(
      after.every(
        (r) => r.attempts[1]!.txHash === replacement && r.attempts[1]!.batchIndex === r.attempts[0]!.batchIndex,
      ),
    ).to.equal(true)
    // One broadcast per transaction, not per row (the fake's raw bytes are alike: count the transactions).
    expect(d.submitter.rebroadcasts).to.have.length(new Set(rows().map((r) => r.attempts.at(-1)!.txHash)).size)
  })

  it("a mined batch: each row ends as its own item says — confirmed, reverted, or settled by another party's copy", async () => {
    const { d, recover, batchRows } = await setup()
    const batch = batchRows()[0]!.attempts[0]!
    const size = batchRows().filter((r) => r.attempts[0]!.txHash === batch.txHash).length
    expect(size).to.be.greaterThan(2)
    const other = { txHash: `0x${'0f'.repeat(32)}` as Hex, blockNumber: 41n }
    d.submitter.mined.set(batch.txHash, {
      txHash: batch.txHash,
      blockNumber: 42n,
      gasUsed: 60_000n * BigInt(size),
      succeeded: true,
      items: Array.from({ length: size }, (_, index) =>
        index === 0
          ? { index, succeeded: false, revertReason: 'FiatTokenV2: authorization is used or canceled' }
          : index === 1
            ? { index, succeeded: false, revertReason: 'Blacklistable: account is blacklisted' }
            : { index, succeeded: true },
      ),
    })
    d.submitter.minedCount = batch.accountNonce! + 1n
    // Item 0's authorization was used by another transaction; item 1's by nobody, and its payer is blacklisted.
    d.token.usedBy = undefined
    const blacklisted = batchRows().find(
      (r) => r.attempts[0]!.batchIndex === 1 && r.attempts[0]!.txHash === batch.txHash,
    )!.nonce
    d.token.trialFor = (a) =>
      a.nonce === blacklisted
        ? { _tag: 'WouldRevert', paused: false, payerBlacklisted: true, payeeBlacklisted: false }
        : undefined
    const endedBy = d.token.authorizationEndedBy
    Object.assign(d.token, {
      authorizationEndedBy: ({ nonce: n }: { nonce: Hex }) =>
        n === batchRows().find((r) => r.attempts[0]!.batchIndex === 0 && r.attempts[0]!.txHash === batch.txHash)!.nonce
          ? TE.right({ _tag: 'Some', value: { ...other, how: 'used' } })
          : endedBy(),
    })
    await recover()
    const ofBatch = [...d.journal.rows.values()].filter((r) => r.attempts[0]!.txHash === batch.txHash)
    const byIndex = (i: number) => ofBatch.find((r) => r.attempts[0]!.batchIndex === i)!
    expect(byIndex(0)).to.deep.include({ state: 'confirmed', txHash: other.txHash })
    expect(byIndex(1)).to.deep.include({
      state: 'reverted',
      txHash: batch.txHash,
      error: 'Blacklistable: account is blacklisted',
    })
    for (let i = 2; i < size; i++)
      expect(byIndex(i)).to.deep.include({
        state: 'confirmed',
        txHash: batch.txHash,
        blockNumber: 42n,
        gasUsed: 60_000n,
      })
  })

  it('a failed item whose lone trial now succeeds, its authorization unused, is released (never reverted); one that burnt its bound is reverted', async () => {
    const { d, recover, batchRows } = await setup()
    const batch = batchRows()[0]!.attempts[0]!
    const size = batchRows().filter((r) => r.attempts[0]!.txHash === batch.txHash).length
    d.submitter.mined.set(batch.txHash, {
      txHash: batch.txHash,
      blockNumber: 42n,
      gasUsed: 600_000n,
      succeeded: true,
      items: Array.from({ length: size }, (_, index) =>
        index === 0
          ? { index, succeeded: false, revertReason: "ECRecover: invalid signature 'v' value", gasUsed: 40_000n }
          : index === 1
            ? { index, succeeded: false, gasUsed: 299_000n }
            : { index, succeeded: true },
      ),
    })
    d.submitter.minedCount = batch.accountNonce! + 1n
    const report = await recover()
    const ofBatch = [...d.journal.rows.values()].filter((r) => r.attempts[0]!.txHash === batch.txHash)
    const byIndex = (i: number) => ofBatch.find((r) => r.attempts[0]!.batchIndex === i)!
    expect(byIndex(0).state).to.equal('released')
    expect(byIndex(1).state).to.equal('reverted')
    expect(report.outcomes).to.deep.include({ 'released-failed-in-batch': 1, reverted: 1 })
    expect(d.exposure.inFlight(byIndex(0).payer)).to.equal(
      [...d.journal.rows.values()].filter((r) => r.state === 'submitted').reduce((sum, r) => sum + r.value, 0n),
    )
  })

  it('a payer with code: its failed items whose lone trial succeeds are released whatever gas they used (never reverted, never sent), and it is suspended', async () => {
    const penalties = makePenaltyBox(testClock, { penaltyMs: 600_000, lostGasBudget: 10_000_000n })
    const { d, recover, batchRows } = await setup({ penalties })
    d.token.payerHasCode = true
    const batch = batchRows()[0]!.attempts[0]!
    const size = batchRows().filter((r) => r.attempts[0]!.txHash === batch.txHash).length
    d.submitter.mined.set(batch.txHash, {
      txHash: batch.txHash,
      blockNumber: 42n,
      gasUsed: 600_000n,
      succeeded: true,
      items: Array.from({ length: size }, (_, index) =>
        index < 2
          ? { index, succeeded: false, gasUsed: index === 0 ? 280_000n : 299_000n }
          : { index, succeeded: true },
      ),
    })
    d.submitter.minedCount = batch.accountNonce! + 1n
    const broadcasts = d.submitter.broadcasts.length
    const report = await recover()
    const ofBatch = [...d.journal.rows.values()].filter((r) => r.attempts[0]!.txHash === batch.txHash)
    expect(ofBatch.filter((r) => r.attempts[0]!.batchIndex! < 2).map((r) => r.state)).to.deep.equal([
      'released',
      'released',
    ])
    expect(report.outcomes).to.deep.include({ 'released-failed-in-batch': 2 })
    expect(penalties.sendingRefusedUntil(ofBatch[0]!.payer)).to.not.equal(undefined)
    expect(d.submitter.broadcasts.length).to.equal(broadcasts)
  })

  it("a replacement mined before the page's later rows are read: each row sees it and is confirmed by it", async () => {
    const { d, recover, batchRows } = await setup()
    const batch = batchRows()[0]!.attempts[0]!
    // The chain mines whatever is rebroadcast, at once.
    const rebroadcast = d.submitter.rebroadcast
    Object.assign(d.submitter, {
      rebroadcast: (raw: Hex, sender: Address) => {
        const replaced = [...d.journal.rows.values()]
          .flatMap((r) => r.attempts)
          .find((a) => a.raw === raw && a.txHash !== batch.txHash && a.accountNonce === batch.accountNonce)
        if (replaced !== undefined) {
          const size = d.submitter.batchSizes.get(batch.txHash) ?? 1
          d.submitter.mined.set(replaced.txHash, {
            txHash: replaced.txHash,
            blockNumber: 43n,
            gasUsed: 1n,
            succeeded: true,
            items: Array.from({ length: size }, (_, index) => ({ index, succeeded: true })),
          })
          d.submitter.minedCount = batch.accountNonce! + 1n
        }
        return rebroadcast(raw, sender)
      },
    })
    await recover()
    const ofBatch = () => [...d.journal.rows.values()].filter((r) => r.attempts[0]!.txHash === batch.txHash)
    expect(ofBatch().length).to.be.greaterThan(1)
    // The row that replaced the batch learns of its receipt next pass; the others, read before it, in this one.
    expect(ofBatch().filter((r) => r.state === 'confirmed' && r.txHash === r.attempts[1]!.txHash)).to.have.length(
      ofBatch().length - 1,
    )
    expect(ofBatch().filter((r) => r.state === 'released')).to.deep.equal([])
    await recover()
    for (const row of ofBatch()) expect(row).to.deep.include({ state: 'confirmed', txHash: row.attempts[1]!.txHash })
  })

  it('a batch mined but reverted as a whole: recovery releases each of its rows (nothing moved), never marks one reverted', async () => {
    const { d, recover, batchRows } = await setup()
    const batch = batchRows()[0]!.attempts[0]!
    d.submitter.mined.set(batch.txHash, {
      txHash: batch.txHash,
      blockNumber: 42n,
      gasUsed: 1n,
      succeeded: false,
      revertReason: 'BatchSettler: out of gas before an item',
    })
    d.submitter.minedCount = batch.accountNonce! + 1n
    await recover()
    const ofBatch = [...d.journal.rows.values()].filter((r) => r.attempts[0]!.txHash === batch.txHash)
    expect(ofBatch.map((r) => r.state)).to.deep.equal(ofBatch.map(() => 'released'))
  })
})
