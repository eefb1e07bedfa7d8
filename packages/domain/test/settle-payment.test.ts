import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { explainAnyRefusal, settlePayment, type SettleOutcome } from '@x402-facilitator/domain'
import { PAYER, makeDeps, policy, receiptFor, validRequest, withEvm } from './fakes.js'
import { BLOCK_42 } from './sample-values.js'

const options = { requirementsRecord: { amount: '1000000' }, answerId: 'answer' }
const settle = async (d: ReturnType<typeof makeDeps>, request = validRequest()) =>
  settlePayment(request, options)(withEvm(d.deps))()
const outcome = async (d: ReturnType<typeof makeDeps>, request = validRequest()): Promise<SettleOutcome> => {
  const result = await settle(d, request)
  if (E.isLeft(result)) throw new Error(`unexpected infrastructure failure: ${result.left.reason}`)
  return result.right
}
const onlyRow = (d: ReturnType<typeof makeDeps>) => {
  const rows = [...d.journal.rows.values()]
  expect(rows).to.have.length(1)
  return rows[0]!
}

describe('settlePayment (docs/ARCHITECTURE.md §5) on in-memory ports', () => {
  it('success: claims, records the attempt before broadcasting, confirms', async () => {
    const d = makeDeps()
    let stateAtBroadcast: string | undefined
    d.submitter.script = (prepared) => {
      stateAtBroadcast = onlyRow(d).state
      return E.right({ _tag: 'Mined', receipt: receiptFor(prepared, true) })
    }
    const result = await outcome(d)
    expect(result).to.deep.equal({
      _tag: 'Settled',
      payer: PAYER,
      txHash: d.submitter.broadcasts[0]!.txHash,
      blockNumber: 42n,
      blockHash: BLOCK_42,
      replayed: false,
      recordedAt: onlyRow(d).createdAt,
    })
    expect(stateAtBroadcast).to.equal('submitted')
    expect(onlyRow(d)).to.include({ state: 'confirmed', blockNumber: 42n })
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })

  it('a rule failure claims nothing and broadcasts nothing', async () => {
    const d = makeDeps()
    d.token.state = { balance: 1n, authorizationUsed: false }
    const result = await outcome(d)
    expect(result._tag === 'Refused' && explainAnyRefusal(result.refusal, policy).reasonCode).to.equal(
      'insufficient_funds',
    )
    expect(d.journal.rows.size).to.equal(0)
    expect(d.submitter.broadcasts).to.have.length(0)
  })

  it('a transfer whose trial reverts (rule 10) claims nothing, signs nothing and reserves nothing', async () => {
    const d = makeDeps()
    d.token.transfer = {
      _tag: 'WouldRevert',
      paused: false,
      payerBlacklisted: true,
      payeeBlacklisted: false,
      reason: 'Blacklistable: account is blacklisted',
    }
    const result = await outcome(d)
    expect(result._tag === 'Refused' && explainAnyRefusal(result.refusal, policy).reasonCode).to.equal(
      'payer_blacklisted',
    )
    expect(d.journal.rows.size).to.equal(0)
    expect(d.submitter.preparedGas).to.have.length(0)
    expect(d.exposure.inFlight(PAYER)).to.equal(0n)
  })

  it("the transaction's gas comes from the trial; a payment the node could not try goes with the submitter's default", async () => {
    const d = makeDeps()
    await outcome(d)
    d.token.transfer = { _tag: 'NotTried', why: 'the latest block is older than validAfter' }
    await outcome(d, validRequest({ nonce: `0x${'cd'.repeat(32)}` }))
    expect(d.submitter.preparedGas).to.deep.equal([61_234n, undefined])
  })

  it("claim conflict: the second settle of one authorization is refused with the first one's transaction", async () => {
    const d = makeDeps()
    await outcome(d)
    const second = await outcome(d)
    expect(second._tag).to.equal('Refused')
    if (second._tag !== 'Refused') return
    expect(second.refusal).to.deep.equal({
      _tag: 'AlreadySettling',
      state: 'confirmed',
      txHash: d.submitter.broadcasts[0]!.txHash,
    })
    expect(explainAnyRefusal(second.refusal, policy).reasonCode).to.equal('authorization_already_used')
    expect(d.submitter.broadcasts).to.have.length(1)
  })

  it('a nonce used on-chain by our own settlement is answered with its row', async () => {
    const d = makeDeps()
    await outcome(d)
    d.token.state = { ...d.token.state, authorizationUsed: true }
    const again = await outcome(d)
    expect(again._tag === 'Refused' && again.refusal).to.deep.include({ _tag: 'AlreadySettling', state: 'confirmed' })
  })

  it('journal down before the claim → JournalUnavailable, nothing signed or broadcast', async () => {
    const d = makeDeps()
    d.journal.down = true
    const result = await settle(d)
    expect(E.isLeft(result) && result.left._tag).to.equal('JournalUnavailable')
    expect(d.submitter.broadcasts).to.have.length(0)
    expect(d.submitter.nextNonce).to.equal(0n)
  })

  it('journal down when the attempt is recorded → nothing broadcast, the nonce given back', async () => {
    const d = makeDeps()
    d.journal.failAfterCalls = 1 // the claim succeeds, markSubmitted fails
    const result = await settle(d)
    expect(E.isLeft(result) && result.left._tag).to.equal('JournalUnavailable')
    expect(d.submitter.broadcasts).to.have.length(0)
    expect(d.submitter.discarded).to.deep.equal([0n])
  })

  it("the attempt's write committed but its answer was lost → the guarded release finds it stored, and it is broadcast", async () => {
    const d = makeDeps()
    d.journal.loseAnswerOf.add('markSubmitted')
    const result = await outcome(d)
    expect(result._tag).to.equal('Settled')
    expect(d.submitter.broadcasts).to.have.length(1)
    expect(d.submitter.discarded).to.deep.equal([])
    expect(onlyRow(d)).to.include({ state: 'confirmed', txHash: d.submitter.broadcasts[0]!.txHash })
  })

  it("the attempt's write unanswered and the journal hanging → 202 with the hash, nothing broadcast, the nonce not reused from memory", async () => {
    const d = makeDeps()
    d.journal.failAfterCalls = undefined
    const claimThenHang = d.journal.claim
    Object.assign(d.journal, {
      claim:
        (...args: Parameters<typeof claimThenHang>) =>
        async () => {
          const claimed = await claimThenHang(...args)()
          d.journal.hangs = true
          return claimed
        },
    })
    const result = await outcome(d)
    expect(result).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: `0x${'0'.padStart(64, 'e')}` })
    expect(d.submitter.broadcasts).to.have.length(0)
    expect(d.submitter.discarded).to.deep.equal([])
    expect(d.submitter.abandoned).to.deep.equal([0n])
    d.journal.hangs = false
    expect(onlyRow(d).state).to.equal('claimed')
  })

  it('journal down after the receipt → 202 with the transaction (no success unmarked); the row waits in submitted for recovery', async () => {
    const d = makeDeps()
    d.journal.failAfterCalls = 2 // claim and markSubmitted succeed, markMined and the success's mark fail
    const result = await outcome(d)
    expect(result).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: d.submitter.broadcasts[0]!.txHash })
    d.journal.down = false
    d.journal.failAfterCalls = undefined
    expect(onlyRow(d).state).to.equal('submitted')
    expect(onlyRow(d).successAnsweredBy).to.equal(undefined)
  })

  it('receipt not in time → Pending with the hash, never a bare failure', async () => {
    const d = makeDeps()
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    const result = await outcome(d)
    expect(result).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: d.submitter.broadcasts[0]!.txHash })
    expect(onlyRow(d).state).to.equal('submitted')
  })

  it('a settle answered Pending keeps its amount in flight: a second settle the balance cannot also cover is refused', async () => {
    const d = makeDeps()
    d.token.state = { balance: 1_500_000n, authorizationUsed: false }
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    expect((await outcome(d))._tag).to.equal('Pending')
    expect(d.exposure.inFlight(PAYER)).to.equal(1_000_000n)
    const second = await outcome(d, validRequest({ nonce: `0x${'cd'.repeat(32)}` }))
    expect(second._tag === 'Refused' && explainAnyRefusal(second.refusal, policy).reasonCode).to.equal(
      'insufficient_funds',
    )
    expect(d.submitter.broadcasts).to.have.length(1)
  })

  it('a broadcast whose fate is unknown (connection lost) → Pending, not 503', async () => {
    const d = makeDeps()
    d.submitter.script = () => E.left({ _tag: 'SendUncertain', reason: 'socket hang up' })
    expect((await outcome(d))._tag).to.equal('Pending')
  })

  it('a broadcast whose fate is unknown but which the node did take (found mined while waiting) → settled', async () => {
    const d = makeDeps()
    d.submitter.script = (prepared) => {
      // The answer was lost; the chain has the transaction all the same (e.g. sent on through another RPC URL).
      d.submitter.mined.set(prepared.txHash, receiptFor(prepared, true))
      return E.left({ _tag: 'SendUncertain', reason: 'socket hang up' })
    }
    const result = await outcome(d)
    expect(result._tag).to.equal('Settled')
    expect(onlyRow(d).state).to.equal('confirmed')
  })

  it('reverted transaction → refused with the hash and reason, row reverted', async () => {
    const d = makeDeps()
    d.submitter.script = (prepared) => E.right({ _tag: 'Mined', receipt: receiptFor(prepared, false) })
    const result = await outcome(d)
    expect(result._tag === 'Refused' && explainAnyRefusal(result.refusal, policy)).to.deep.equal({
      reasonCode: 'invalid_transaction_state',
      message: `settlement transaction ${d.submitter.broadcasts[0]!.txHash} reverted: FiatToken: insufficient balance`,
    })
    expect(onlyRow(d).state).to.equal('reverted')
  })

  it('ours reverted because a copy of the authorization was mined first → settled by that transaction, recorded as such', async () => {
    const d = makeDeps()
    const copy = { txHash: `0x${'c0'.repeat(32)}` as const, blockNumber: 41n }
    d.token.usedBy = copy
    d.submitter.script = (prepared) => E.right({ _tag: 'Mined', receipt: receiptFor(prepared, false) })
    expect(await outcome(d)).to.deep.equal({
      _tag: 'Settled',
      payer: PAYER,
      txHash: copy.txHash,
      blockNumber: 41n,
      replayed: false,
      recordedAt: onlyRow(d).createdAt,
    })
    expect(onlyRow(d)).to.include({ state: 'confirmed', txHash: copy.txHash, blockNumber: 41n })
  })

  it('chain unavailable while signing → ChainUnavailable, the claim released', async () => {
    const d = makeDeps()
    d.submitter.down = true
    const result = await settle(d)
    expect(E.isLeft(result) && result.left._tag).to.equal('ChainUnavailable')
    expect(onlyRow(d).state).to.equal('released')
    d.submitter.down = false
    expect((await outcome(d))._tag).to.equal('Settled')
  })

  it('the node refuses the transaction → ChainUnavailable, the row released, the nonce given back', async () => {
    const d = makeDeps()
    d.submitter.script = () => E.left({ _tag: 'SendRejected', reason: 'insufficient funds for gas' })
    const result = await settle(d)
    expect(E.isLeft(result) && result.left._tag).to.equal('ChainUnavailable')
    expect(onlyRow(d).state).to.equal('released')
    expect(d.submitter.discarded).to.deep.equal([0n])
  })

  it('two concurrent settles of one payer cannot spend the same balance', async () => {
    const d = makeDeps()
    d.token.state = { balance: 1_500_000n, authorizationUsed: false }
    const [a, b] = await Promise.all([
      outcome(d, validRequest({ nonce: `0x${'01'.repeat(32)}` })),
      outcome(d, validRequest({ nonce: `0x${'02'.repeat(32)}` })),
    ])
    expect([a._tag, b._tag].sort()).to.deep.equal(['Refused', 'Settled'])
    expect(d.submitter.broadcasts).to.have.length(1)
  })
})
