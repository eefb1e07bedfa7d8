import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import {
  makePenaltyBox,
  settlePayment,
  type Hex,
  type SettleOptions,
  type SettleOutcome,
} from '@x402-facilitator/domain'
import {
  PAYER,
  makeDeps,
  type FakeSubmitter,
  nextAnswerId,
  receiptFor,
  testClock,
  validRequest,
  withEvm,
  type TestDeps,
} from './fakes.js'
import { until } from './until.js'

/** REVIEW-1 findings 4 and 5: what stands between a payment answered 202 and its caller's one success. */
const from = (caller: string): SettleOptions => ({
  requirementsRecord: {},
  answerId: nextAnswerId(),
  caller,
  requestHash: 'digest-1',
})
const run = async (deps: TestDeps, options: SettleOptions, request = validRequest()): Promise<SettleOutcome> => {
  const result = await settlePayment(request, options)(withEvm(deps))()
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}

describe('after a 202: a payer suspended since (docs/ARCHITECTURE.md §5.7)', () => {
  const suspendedAfter202 = async () => {
    const d = makeDeps()
    const penalties = makePenaltyBox(testClock, { penaltyMs: 600_000, lostGasBudget: 10_000_000n })
    const deps: TestDeps = { ...d.deps, penalties }
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    expect((await run(deps, from('api:a')))._tag).to.equal('Pending')
    const sent = d.submitter.broadcasts[0]!
    // Another payment of this payer (a contract: the fakes' signatures are not a key's) reverted meanwhile.
    penalties.refuseSending(PAYER)
    d.submitter.mined.set(sent.txHash, receiptFor(sent, true))
    return { d, deps, sent }
  }

  it("the caller's keyless retry of the payment answered 202 gets its success once it is mined", async () => {
    const { d, deps, sent } = await suspendedAfter202()
    expect(await run(deps, from('api:a'))).to.deep.include({ _tag: 'Settled', txHash: sent.txHash, replayed: false })
    expect(d.submitter.broadcasts).to.have.length(1)
  })

  it('another caller is refused as for any row already there; a new payment of the payer is refused payer_suspended', async () => {
    const { deps } = await suspendedAfter202()
    expect(await run(deps, from('api:b'))).to.have.nested.property('refusal._tag', 'AlreadySettling')
    const other = validRequest({ nonce: `0x${'cd'.repeat(32)}` as Hex })
    expect(await run(deps, from('api:a'), other)).to.have.nested.property('refusal._tag', 'PayerSuspended')
  })
})

const PAYER_B: Hex = '0x90f79bf6eb2c4f870365e785982e1f101e93b906'
const PAYER_C: Hex = '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65'
const requestOf = (payer: Hex, maxTimeoutSeconds: number) => {
  const request = validRequest({ nonce: `0x${payer.slice(2, 34).padStart(64, '0')}` as Hex })
  return {
    payload: { ...request.payload, authorization: { ...request.payload.authorization, from: payer } },
    requirements: { ...request.requirements, maxTimeoutSeconds },
  }
}
/**
 * PAYER's payment (maxTimeoutSeconds 1) is batched with PAYER_B's behind PAYER_C's lone transaction, answered 202
 * before the batch's block, and the settler does not run it. `block()` mines the batch.
 */
const notRunAfter202 = async () => {
  const d = makeDeps({ maxItems: 10 })
  d.token.state = { balance: 1_000_000n, authorizationUsed: false }
  // Batches are not mined within the short wait of a 1 s request; the longer waits see the block once it comes.
  let block = () => {}
  const blockCame = new Promise<void>((resolve) => (block = resolve))
  d.submitter.script = (prepared) =>
    d.submitter.batchSizes.has(prepared.txHash)
      ? E.right({ _tag: 'Unconfirmed' })
      : E.right({ _tag: 'Mined', receipt: receiptFor(prepared, true) })
  Object.assign(d.submitter, {
    waitForReceipt: (prepared: Parameters<FakeSubmitter['waitForReceipt']>[0], waitMs: number) => async () =>
      waitMs < 10_000 ? O.none : blockCame.then(() => O.fromNullable(d.submitter.mined.get(prepared.txHash))),
  })
  // The settler stops before PAYER's item: it does not run.
  d.submitter.itemOutcome = (index, item) =>
    item.authorization.from === PAYER ? { index, succeeded: false, notRun: true } : { index, succeeded: true }

  const release = d.submitter.holdSends()
  const first = run(d.deps, from('api:c'), requestOf(PAYER_C, 60))
  await until(() => d.submitter.broadcasts.length === 1)
  const short = requestOf(PAYER, 1)
  const answeredA = run(d.deps, from('api:a'), short)
  const answeredB = run(d.deps, from('api:b'), requestOf(PAYER_B, 60))
  await until(() => d.queued() === 3)
  d.clock.advance(d.windowMs)
  await until(() => d.submitter.broadcasts.length === 2)
  expect(d.submitter.batches).to.deep.equal([2])
  release()
  expect((await first)._tag).to.equal('Settled')
  expect((await answeredA)._tag).to.equal('Pending')
  expect(d.exposure.inFlight(PAYER)).to.equal(1_000_000n)
  const batch = d.submitter.broadcasts[1]!
  d.submitter.mined.set(batch.txHash, d.submitter.receiptOfBatch(batch)!)
  const rowOfA = () => [...d.journal.rows.values()].find((r) => r.payer === PAYER)!
  return { d, short, answeredB, rowOfA, block }
}

describe('after a 202: a batch that did not run the payment (docs/ARCHITECTURE.md §3 rule 9, §5.7)', () => {
  it("the payment's kept amount ends with its row: the caller's retry, its payer holding exactly the amount, settles alone", async () => {
    const { d, short, answeredB, rowOfA, block } = await notRunAfter202()
    block()
    expect((await answeredB)._tag).to.equal('Settled')
    await until(() => rowOfA().state === 'released')
    await new Promise((resolve) => setImmediate(resolve))

    expect(await run(d.deps, from('api:a'), short)).to.deep.include({ _tag: 'Settled', replayed: false })
    expect(rowOfA()).to.include({ state: 'confirmed' })
    expect(d.submitter.batchSizes.has(rowOfA().txHash!)).to.equal(false)
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })

  it('a retry already waiting on the row when it is released settles it alone (its own amount does not refuse it)', async () => {
    const { d, short, answeredB, rowOfA, block } = await notRunAfter202()
    let polls = 0
    const clock = {
      ...d.deps.clock,
      sleep: (ms: number) => {
        if (++polls === 1) block()
        return d.deps.clock.sleep(ms)
      },
    }
    expect(await run({ ...d.deps, clock }, from('api:a'), short)).to.deep.include({ _tag: 'Settled', replayed: false })
    expect(polls).to.be.at.least(1)
    expect((await answeredB)._tag).to.equal('Settled')
    expect(rowOfA()).to.include({ state: 'confirmed' })
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })
})
