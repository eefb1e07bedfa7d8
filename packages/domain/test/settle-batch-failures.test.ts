import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  evmRow,
  explainAnyRefusal,
  journalUnavailable,
  makePenaltyBox,
  settlePayment,
  type Hex,
} from '@x402-facilitator/domain'
import { batched, BY_KEY, options, outcomes, settleMany, settleManyWith } from './batching-steps.js'
import { PAYER, policy, testClock, validRequest, withEvm, type TestDeps } from './fakes.js'

describe('settlePayment with batches: failed items, refused and reverted batches (docs/ARCHITECTURE.md §5.7)', () => {
  it("a failed item that fails alone too answers its own refusal with the token's reason; the others of its batch settle", async () => {
    const d = batched(10)
    const failed = new Set<Hex>()
    d.submitter.itemOutcome = (index, item) => {
      if (index !== 1) return { index, succeeded: true }
      failed.add(item.authorization.nonce)
      return { index, succeeded: false, revertReason: 'ERC20: transfer amount exceeds balance' }
    }
    d.token.trialFor = (a) =>
      failed.has(a.nonce)
        ? {
            _tag: 'WouldRevert',
            paused: false,
            payerBlacklisted: false,
            payeeBlacklisted: false,
            reason: 'ERC20: transfer amount exceeds balance',
          }
        : undefined
    const results = outcomes(await settleMany(d, 6))
    const refused = results.filter((r) => r._tag === 'Refused')
    expect(d.submitter.batches.length).to.be.greaterThan(0)
    expect(refused).to.have.length(d.submitter.batches.length)
    for (const r of refused) {
      expect(r._tag === 'Refused' && explainAnyRefusal(r.refusal, policy).reasonCode).to.equal(
        'invalid_transaction_state',
      )
      expect(r._tag === 'Refused' && r.refusal).to.deep.include({
        _tag: 'TransactionReverted',
        reason: 'ERC20: transfer amount exceeds balance',
      })
    }
    const states = [...d.journal.rows.values()].map((r) => r.state)
    expect(states.filter((s) => s === 'reverted')).to.have.length(refused.length)
    expect(states.filter((s) => s === 'confirmed')).to.have.length(6 - refused.length)
  })

  it("a payer's key (no code): an item that fails in its batch while its lone trial succeeds is released and sent alone, never journalled reverted", async () => {
    const d = batched(10)
    d.submitter.itemOutcome = (index) =>
      index === 1
        ? { index, succeeded: false, revertReason: "ECRecover: invalid signature 'v' value" }
        : { index, succeeded: true }
    const results = outcomes(await settleManyWith(withEvm({ ...d.deps, signatures: BY_KEY }), 6))
    expect(d.submitter.batches.length).to.be.greaterThan(0)
    expect(results.every((r) => r._tag === 'Settled')).to.equal(true)
    const rows = [...d.journal.rows.values()]
    expect(rows.map((r) => r.state)).to.deep.equal(Array(6).fill('confirmed'))
    // Each failed item's row was released once and claimed again: its last transaction is its own.
    const again = rows.filter((r) => r.generation > 1)
    expect(again).to.have.length(d.submitter.batches.length)
    for (const row of again) expect(d.submitter.batchSizes.has(row.txHash!)).to.equal(false)
  })

  for (const [budget, reasonCode] of [
    ['left', 'payer_suspended'],
    ['spent', 'contract_payer_gas_budget_spent'],
  ] as const) {
    it(`a payer with code whose item fails in its batch while its lone trial succeeds is never sent alone (budget ${budget}): released, suspended, answered ${reasonCode}, and its retry refused payer_suspended`, async () => {
      const d = batched(10)
      const penalties = makePenaltyBox(testClock, {
        penaltyMs: 600_000,
        lostGasBudget: 10_000_000n,
        loneLostGasBudget: 1_000_000n,
      })
      const deps: TestDeps = { ...d.deps, penalties }
      // Used less than its bound (not "burnt"): a wallet leaving some of the gas it was given. Other payers' lone
      // reverts may spend the budget meanwhile.
      d.submitter.itemOutcome = (index) => {
        if (budget === 'spent') penalties.lostGas(2_000_000n, 'alone')
        return index === 1 ? { index, succeeded: false, gasUsed: 280_000n } : { index, succeeded: true }
      }
      const results = outcomes(await settleManyWith(deps, 6))
      expect(d.submitter.batches).to.have.length.greaterThan(0)
      const refused = results.filter((r) => r._tag === 'Refused')
      expect(refused).to.have.length(d.submitter.batches.length)
      for (const r of refused)
        expect(r._tag === 'Refused' && explainAnyRefusal(r.refusal, policy).reasonCode).to.equal(reasonCode)
      const rows = [...d.journal.rows.values()]
      expect(rows.filter((r) => r.state === 'released')).to.have.length(refused.length)
      expect(rows.some((r) => r.state === 'reverted')).to.equal(false)
      // None was claimed again (and so sent alone) after its batch.
      expect(rows.every((r) => r.generation === 1)).to.equal(true)
      const released = rows.find((r) => r.state === 'released')!
      const retry = await settlePayment(validRequest({ nonce: evmRow(released).nonce }), options)(withEvm(deps))()
      // Its payer's suspension comes first.
      expect(
        E.isRight(retry) && retry.right._tag === 'Refused' && explainAnyRefusal(retry.right.refusal, policy).reasonCode,
      ).to.equal('payer_suspended')
    })
  }

  it('a batch the settler stopped (too little gas left): the items run keep their outcomes, only the rows not run are released and sent alone', async () => {
    const d = batched(10)
    d.submitter.itemOutcome = (index) =>
      index >= 2 ? { index, succeeded: false, notRun: true } : { index, succeeded: true }
    const results = outcomes(await settleMany(d, 8))
    expect(results.every((r) => r._tag === 'Settled')).to.equal(true)
    const rows = [...d.journal.rows.values()]
    expect(rows.map((r) => r.state)).to.deep.equal(Array(8).fill('confirmed'))
    for (const row of rows) {
      const inBatch = d.submitter.batchSizes.has(row.txHash!)
      // A row that settled in a batch ran there (index 0 or 1); a row not run went alone after its release.
      if (inBatch) expect(row.attempts.at(-1)!.batchIndex! < 2).to.equal(true)
      else if (row.generation > 1) expect(row.attempts).to.have.length(1)
    }
    const notRun = d.submitter.batches.reduce((sum, size) => sum + Math.max(0, size - 2), 0)
    expect(rows.filter((r) => r.generation > 1)).to.have.length(notRun)
    expect(notRun).to.be.greaterThan(0)
  })

  it('an item front-run by a copy of its authorization is settled by that other transaction (the payee was paid)', async () => {
    const d = batched(10)
    const other = { txHash: `0x${'0f'.repeat(32)}` as Hex, blockNumber: 41n }
    const used = new Set<Hex>()
    d.submitter.itemOutcome = (index, item) => {
      if (index !== 0) return { index, succeeded: true }
      used.add(item.authorization.nonce)
      return { index, succeeded: false, revertReason: 'FiatTokenV2: authorization is used or canceled' }
    }
    // Alone it fails too: the copy used the authorization.
    d.token.trialFor = (a) =>
      used.has(a.nonce)
        ? {
            _tag: 'WouldRevert',
            paused: false,
            payerBlacklisted: false,
            payeeBlacklisted: false,
            reason: 'FiatTokenV2: authorization is used or canceled',
          }
        : undefined
    d.token.usedBy = other
    const results = outcomes(await settleMany(d, 5))
    const byOther = results.filter((r) => r._tag === 'Settled' && r.txHash === other.txHash)
    expect(byOther).to.have.length(d.submitter.batches.length)
    expect(results.every((r) => r._tag === 'Settled')).to.equal(true)
    expect([...d.journal.rows.values()].filter((r) => r.txHash === other.txHash).map((r) => r.state)).to.deep.equal(
      byOther.map(() => 'confirmed'),
    )
  })

  it("the journal refusing a batch's record: each payment of it 503, nothing of it broadcast, its nonce given back", async () => {
    const d = batched(10)
    Object.assign(d.journal, { markBatchSubmitted: () => TE.left(journalUnavailable('connection refused', true)) })
    const results = await settleMany(d, 6)
    const inBatches = d.submitter.batches.reduce((a, b) => a + b, 0)
    expect(inBatches).to.be.greaterThan(0)
    expect(results.filter(E.isLeft).map((r) => E.isLeft(r) && r.left._tag)).to.deep.equal(
      Array(inBatches).fill('JournalUnavailable'),
    )
    expect(d.submitter.broadcasts.every((b) => !d.submitter.batchSizes.has(b.txHash))).to.equal(true)
    expect(d.submitter.discarded).to.have.length(d.submitter.batches.length)
    expect([...d.journal.rows.values()].filter((r) => r.state === 'claimed')).to.have.length(inBatches)
  })

  it("a batch whose record's answer is lost (but written) is broadcast as if it had answered: each paid once", async () => {
    const d = batched(10)
    d.journal.loseAnswerOf.add('markBatchSubmitted')
    const results = outcomes(await settleMany(d, 6))
    expect(results.every((r) => r._tag === 'Settled')).to.equal(true)
    expect(d.journal.loseAnswerOf.has('markBatchSubmitted')).to.equal(false)
    expect(d.submitter.discarded).to.deep.equal([])
    expect([...d.journal.rows.values()].every((r) => r.state === 'confirmed')).to.equal(true)
  })

  it('the node refuses a batch: each of its payments 503 and released (may be claimed again), its nonce given back', async () => {
    const d = batched(10)
    d.submitter.script = (prepared) =>
      d.submitter.batchSizes.has(prepared.txHash)
        ? E.left({ _tag: 'SendRejected', reason: 'insufficient funds for gas' })
        : E.right({
            _tag: 'Mined',
            receipt: d.submitter.receiptOfBatch(prepared) ?? {
              txHash: prepared.txHash,
              blockNumber: 42n,
              gasUsed: 1n,
              succeeded: true,
            },
          })
    const results = await settleMany(d, 6)
    const refusedBatchItems = d.submitter.batches.reduce((a, b) => a + b, 0)
    expect(results.filter(E.isLeft)).to.have.length(refusedBatchItems)
    expect([...d.journal.rows.values()].filter((r) => r.state === 'released')).to.have.length(refusedBatchItems)
    expect(d.submitter.discarded).to.have.length(d.submitter.batches.length)
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })

  it('a batch that reverted as a whole (an earlier settler; nothing moved): its rows are released and each goes again alone, none answered 503', async () => {
    const d = batched(10)
    d.submitter.script = (prepared) =>
      E.right({
        _tag: 'Mined',
        receipt: d.submitter.batchSizes.has(prepared.txHash)
          ? {
              txHash: prepared.txHash,
              blockNumber: 42n,
              gasUsed: 400_000n,
              succeeded: false,
              revertReason: 'BatchSettler: out of gas before an item',
            }
          : { txHash: prepared.txHash, blockNumber: 42n, gasUsed: 60_000n, succeeded: true },
      })
    const results = outcomes(await settleMany(d, 6))
    const inBatches = d.submitter.batches.reduce((a, b) => a + b, 0)
    expect(inBatches).to.be.greaterThan(0)
    expect(results.every((r) => r._tag === 'Settled')).to.equal(true)
    const rows = [...d.journal.rows.values()]
    expect(rows.map((r) => r.state)).to.deep.equal(Array(6).fill('confirmed'))
    expect(rows.filter((r) => r.generation > 1)).to.have.length(inBatches)
    expect(rows.every((r) => !d.submitter.batchSizes.has(r.txHash!))).to.equal(true)
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })
})
