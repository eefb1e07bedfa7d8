import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  Facilitator,
  makeInMemoryPayerExposure,
  makePenaltyBox,
  NOBODY_DENIED,
  ReplicaLockGate,
  type FacilitatorPolicy,
  type Log,
  type SettleOutcome,
} from '@x402-facilitator/domain'
import { FakeJournal } from '../fake-journal.js'
import { nextAnswerId, NOW, testRecoveryPolicy } from '../fakes.js'
import { makeTestClock } from '../test-clock.js'
import { Ledger, signVoucher } from './ledger.js'
import { ledgerKey, type LedgerKeyOptions } from './ledger-keys.js'
import { ledgerRequestReader, type LedgerRequest } from './ledger-payment.js'

/**
 * The seam's proof (docs/ARCHITECTURE.md §1): a second chain family, in memory, with its own addresses (`ledger:…`),
 * its own payment identity (a voucher's id) and its own settle (a ledger transfer), run through the domain's core
 * unchanged — the route's facilitator, its lanes, the settle use case, exactly-once claims, recovery and lookups, over
 * the same journal fake the EVM's tests use.
 */
const FACILITATOR = 'ledger:facilitator'
const ALICE = 'ledger:alice'
const SHOP = 'ledger:shop'
const policy: FacilitatorPolicy = {
  network: 'ledger:testnet',
  asset: { address: 'ledger:coin', symbol: 'COIN', decimals: 2 },
  facilitator: FACILITATOR,
  validityMarginSeconds: 0n,
  receiptTimeoutMs: 5_000,
}
const silent: Log = { info: () => undefined, warn: () => undefined, error: () => undefined }

const facilitatorOver = (journal: FakeJournal, ledger: Ledger, options: LedgerKeyOptions = {}, startAt = NOW) => {
  const clock = makeTestClock(startAt)
  return new Facilitator<LedgerRequest, LedgerRequest>({
    policy,
    clock,
    exposure: makeInMemoryPayerExposure(),
    journal,
    screen: NOBODY_DENIED,
    liveness: { isAlive: () => TE.right(false) },
    recovery: testRecoveryPolicy,
    penalties: makePenaltyBox(clock, { penaltyMs: 60_000, lostGasBudget: 1_000_000n }),
    logger: silent,
    keys: [ledgerKey(FACILITATOR, ledger, options)],
    gates: [new ReplicaLockGate(silent, FACILITATOR)],
    readRequest: ledgerRequestReader(policy),
  })
}

let vouchers = 0
const request = (value = 100n): LedgerRequest => ({
  network: policy.network,
  payTo: SHOP,
  amount: value,
  voucher: signVoucher({ id: `voucher-${++vouchers}`, from: ALICE, to: SHOP, value }),
})
const options = () => ({ requirementsRecord: {}, answerId: nextAnswerId() })
const answered = (result: E.Either<unknown, SettleOutcome>): SettleOutcome => {
  if (E.isLeft(result)) throw new Error(`a 503: ${JSON.stringify(result.left)}`)
  return result.right
}

describe('a second chain family, in memory (a ledger), through the same core', () => {
  let journal: FakeJournal
  let ledger: Ledger
  beforeEach(() => {
    journal = new FakeJournal()
    ledger = new Ledger()
    ledger.fund(ALICE, 1_000n)
  })

  it('verifies by its own rules: valid, a forged voucher, another network', async () => {
    const facilitator = facilitatorOver(journal, ledger)
    const valid = request()
    const forged = { ...valid, voucher: { ...valid.voucher, value: 900n } }
    const elsewhere = { ...request(), network: 'ledger:other' }
    const verdicts = await Promise.all([valid, forged, elsewhere].map(async (r) => facilitator.verify(r)()))
    expect(verdicts.map((v) => E.isRight(v) && v.right._tag)).to.deep.equal(['Valid', 'Invalid', 'Invalid'])
    expect(E.isRight(verdicts[1]!) && verdicts[1].right._tag === 'Invalid' && verdicts[1].right.failure._tag).to.equal(
      'InvalidSignature',
    )
    expect(E.isRight(verdicts[2]!) && verdicts[2].right._tag === 'Invalid' && verdicts[2].right.failure).to.deep.equal({
      _tag: 'WrongNetwork',
      network: 'ledger:other',
      expected: 'ledger:testnet',
    })
    expect(ledger.transferCount).to.equal(0)
  })

  it('settles once: the answer names its ledger transaction, the row is confirmed, a lookup finds it', async () => {
    const facilitator = facilitatorOver(journal, ledger)
    const paying = request(250n)
    const outcome = answered(await facilitator.settle(paying, options())())
    const txId = ledger.spentIn(paying.voucher.id)!
    expect(outcome).to.deep.include({ _tag: 'Settled', payer: ALICE, txHash: txId, blockNumber: 1n, replayed: false })
    expect([ledger.balanceOf(ALICE), ledger.balanceOf(SHOP)]).to.deep.equal([750n, 250n])
    const found = await facilitator.lookUp({ _tag: 'ByAuthorization', payer: ALICE, nonce: paying.voucher.id })()
    const row = E.isRight(found) ? O.toUndefined(found.right) : undefined
    expect(row).to.deep.include({ state: 'confirmed', payer: ALICE, payee: SHOP, value: 250n, txHash: txId })
  })

  it('the same voucher settled twice at once moves its value once; the other answer is refused', async () => {
    const facilitator = facilitatorOver(journal, ledger)
    const paying = request()
    const outcomes = (await Promise.all([1, 2].map(() => facilitator.settle(paying, options())()))).map(answered)
    expect(ledger.transferCount).to.equal(1)
    expect(outcomes.map((o) => (o._tag === 'Refused' ? o.refusal._tag : o._tag)).sort()).to.deep.equal([
      'AlreadySettling',
      'Settled',
    ])
    expect(journal.rows.size).to.equal(1)
  })

  it('a crash between the transfer and its record: the restarted replica recovers the row, and a retry moves nothing', async () => {
    const paying = request(300n)
    void facilitatorOver(journal, ledger, { crashAfterSend: true }).settle(paying, options())()
    await ledger.transferred(paying.voucher.id)
    expect([...journal.rows.values()].map((row) => row.state)).to.deep.equal(['submitted'])

    const restarted = facilitatorOver(journal, ledger, {}, new Date(NOW.getTime() + 1_000))
    const [recovery] = await restarted.recover({ startUp: true })
    expect(E.isRight(recovery!.report) && recovery!.report.right.outcomes).to.deep.equal({ mined: 1 })
    const [row] = [...journal.rows.values()]
    expect(row).to.deep.include({ state: 'confirmed', txHash: ledger.spentIn(paying.voucher.id) })

    const retry = answered(await restarted.settle(paying, options())())
    expect(retry._tag === 'Refused' && retry.refusal).to.deep.include({ _tag: 'AlreadySettling', state: 'confirmed' })
    expect(ledger.transferCount).to.equal(1)
    expect(ledger.balanceOf(ALICE)).to.equal(700n)
  })
})
