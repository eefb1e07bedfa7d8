import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  Facilitator,
  makeInMemoryPayerExposure,
  makePenaltyBox,
  NOBODY_DENIED,
  ReplicaLockGate,
  svmRequestReader,
  svmSigningKeys,
  type FacilitatorPolicy,
  type Log,
  type SettleOutcome,
  type SvmPaymentRequest,
  type SvmPaymentWire,
} from '@x402-facilitator/domain'
import { FakeJournal } from '../fake-journal.js'
import { nextAnswerId, NOW, testRecoveryPolicy } from '../fakes.js'
import { makeTestClock, type TestClock } from '../test-clock.js'
import { FakeCluster, fakeCodec, fakeFeePayer, fakeWire } from './fake-cluster.js'

const NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
const MINT = 'Mint111111111111111111111111111111111111111'
const FEE_PAYER = 'FeePayer11111111111111111111111111111111111'
const PAYER = 'Payer111111111111111111111111111111111111111'
const PAY_TO = 'Shop1111111111111111111111111111111111111111'
const policy: FacilitatorPolicy = {
  network: NETWORK,
  asset: { address: MINT, symbol: 'USDC', decimals: 6 },
  facilitator: FEE_PAYER,
  validityMarginSeconds: 0n,
  receiptTimeoutMs: 5_000,
}
const silent: Log = { info: () => undefined, warn: () => undefined, error: () => undefined }

const facilitatorOver = (journal: FakeJournal, cluster: FakeCluster, clock: TestClock = makeTestClock(NOW)) =>
  new Facilitator<SvmPaymentWire, SvmPaymentRequest>({
    policy,
    clock,
    exposure: makeInMemoryPayerExposure(),
    journal,
    screen: NOBODY_DENIED,
    liveness: { isAlive: () => TE.right(false) },
    recovery: testRecoveryPolicy,
    penalties: makePenaltyBox(clock, { penaltyMs: 60_000, lostGasBudget: 1_000_000n }),
    logger: silent,
    keys: svmSigningKeys({ chain: cluster.chain, minLamports: 0n, statusPollMs: 1 }, [fakeFeePayer(FEE_PAYER)]),
    gates: [new ReplicaLockGate(silent, FEE_PAYER)],
    readRequest: svmRequestReader({ policy, codec: fakeCodec, feePayers: new Set([FEE_PAYER]), limits: {} }),
  })

const request = (cluster: FakeCluster, amount = 1_000n): SvmPaymentWire => ({
  requirements: {
    scheme: 'exact',
    network: NETWORK,
    asset: MINT,
    amount,
    payTo: PAY_TO,
    maxTimeoutSeconds: 60,
    extra: { feePayer: FEE_PAYER },
  },
  transaction: fakeWire({
    payer: PAYER,
    source: `ata-${PAYER}`,
    destination: `ata-${PAY_TO}`,
    mint: MINT,
    amount: String(amount),
    feePayer: FEE_PAYER,
    blockhashSlot: cluster.slot,
  }),
})
const options = () => ({ requirementsRecord: {}, answerId: nextAnswerId() })
const answered = (result: E.Either<unknown, SettleOutcome>): SettleOutcome => {
  if (E.isLeft(result)) throw new Error(`a 503: ${JSON.stringify(result.left)}`)
  return result.right
}

describe('SVM payments through the core (a cluster in memory)', () => {
  let journal: FakeJournal
  let cluster: FakeCluster
  beforeEach(() => {
    journal = new FakeJournal()
    cluster = new FakeCluster()
    cluster.fund(`ata-${PAYER}`, 10_000n)
  })

  it('settles once: the answer names our signature, the row is confirmed under the message digest', async () => {
    const paying = request(cluster)
    const outcome = answered(await facilitatorOver(journal, cluster).settle(paying, options())())
    expect(outcome).to.deep.include({ _tag: 'Settled', payer: PAYER, blockNumber: 1000n })
    expect(cluster.balances.get(`ata-${PAY_TO}`)).to.equal(1_000n)
    const [row] = [...journal.rows.values()]
    expect(row).to.deep.include({
      state: 'confirmed',
      payer: PAYER,
      payee: PAY_TO,
      value: 1_000n,
      signature: paying.transaction,
    })
    expect(row!.nonce).to.match(/^[0-9a-f]{64}$/)
    expect(outcome._tag === 'Settled' && outcome.txHash).to.equal(row!.txHash)
  })

  it('ten concurrent settles of one payment send it once and answer one success', async () => {
    const facilitator = facilitatorOver(journal, cluster)
    const paying = request(cluster)
    const outcomes = (await Promise.all(Array.from({ length: 10 }, () => facilitator.settle(paying, options())()))).map(
      answered,
    )
    expect(cluster.sends).to.equal(1)
    expect(outcomes.filter((o) => o._tag === 'Settled')).to.have.length(1)
    expect(cluster.balances.get(`ata-${PAYER}`)).to.equal(9_000n)
  })

  it('refuses by simulation a payer without the funds, and an expired blockhash, sending nothing', async () => {
    const facilitator = facilitatorOver(journal, cluster)
    const tooMuch = answered(await facilitator.settle(request(cluster, 20_000n), options())())
    expect(tooMuch._tag === 'Refused' && tooMuch.refusal._tag).to.equal('SvmSimulationFailed')
    const old = request(cluster)
    cluster.advance(151)
    const expired = answered(await facilitator.settle(old, options())())
    expect(expired._tag === 'Refused' && expired.refusal._tag).to.equal('SvmBlockhashExpired')
    expect(cluster.sends).to.equal(0)
  })

  it('a transaction no block took: 202, then released by recovery once its blockhash expired; nothing moved', async () => {
    const clock = makeTestClock(NOW)
    cluster.dropping = true
    const facilitator = facilitatorOver(journal, cluster, clock)
    const paying = request(cluster)
    const settling = facilitator.settle(paying, options())()
    while (cluster.sends === 0) await new Promise((resolve) => setImmediate(resolve))
    clock.advance(60_000)
    expect(answered(await settling)._tag).to.equal('Pending')

    const [alive] = await facilitator.recover({ startUp: false })
    expect(E.isRight(alive!.report) && alive!.report.right.outcomes).to.deep.equal({ rebroadcast: 1 })
    cluster.advance(151)
    const [expired] = await facilitator.recover({ startUp: false })
    expect(E.isRight(expired!.report) && expired!.report.right.outcomes).to.deep.equal({ 'released-node-refused': 1 })
    expect([...journal.rows.values()].map((r) => r.state)).to.deep.equal(['released'])
    expect(cluster.balances.get(`ata-${PAYER}`)).to.equal(10_000n)
  })

  it('a crash after sending: the restarted replica finds the transaction by signature and confirms the row once', async () => {
    const paying = request(cluster)
    const crashing = facilitatorOver(journal, cluster)
    cluster.down = false
    const { chain } = cluster
    // The process dies once its transaction is sent: it never reads the status.
    const statuses = chain.statuses
    ;(chain as { statuses: typeof statuses }).statuses = () => () => new Promise(() => undefined)
    void crashing.settle(paying, options())()
    while (cluster.sends === 0) await new Promise((resolve) => setImmediate(resolve))
    ;(chain as { statuses: typeof statuses }).statuses = statuses
    expect([...journal.rows.values()].map((r) => r.state)).to.deep.equal(['submitted'])

    const restarted = facilitatorOver(journal, cluster, makeTestClock(new Date(NOW.getTime() + 1_000)))
    const [recovery] = await restarted.recover({ startUp: true })
    expect(E.isRight(recovery!.report) && recovery!.report.right.outcomes).to.deep.equal({ mined: 1 })
    const retry = answered(await restarted.settle(paying, options())())
    expect(retry._tag === 'Refused' && retry.refusal).to.deep.include({ _tag: 'AlreadySettling', state: 'confirmed' })
    expect(cluster.sends).to.equal(1)
    expect(cluster.balances.get(`ata-${PAY_TO}`)).to.equal(1_000n)
  })
})
