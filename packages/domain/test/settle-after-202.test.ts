import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { makePenaltyBox, settlePayment, type Hex, type SettleDeps, type SettleOptions, type SettleOutcome } from '@x402-facilitator/domain'
import { PAYER, makeDeps, nextAnswerId, receiptFor, testClock, validRequest } from './fakes.js'

/** REVIEW-1 findings 4 and 5: what stands between a payment answered 202 and its caller's one success. */
const from = (caller: string): SettleOptions => ({ requirementsRecord: {}, answerId: nextAnswerId(), caller, requestHash: 'digest-1' })
const run = async (deps: SettleDeps, options: SettleOptions, request = validRequest()): Promise<SettleOutcome> => {
  const result = await settlePayment(request, options)(deps)()
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}

describe('after a 202: a payer suspended since (docs/ARCHITECTURE.md §5.7)', () => {
  const suspendedAfter202 = async () => {
    const d = makeDeps()
    const penalties = makePenaltyBox(testClock, { penaltyMs: 600_000, lostGasBudget: 10_000_000n })
    const deps: SettleDeps = { ...d.deps, penalties }
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
