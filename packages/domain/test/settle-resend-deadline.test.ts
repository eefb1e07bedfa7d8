import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { settlePayment, type Hex, type PreparedTransfer, type SettleOutcome } from '@x402-facilitator/domain'
import { PAYER, makeDeps, nextAnswerId, validRequest, withEvm, type TestDeps } from './fakes.js'
import { until } from './until.js'

/**
 * REVIEW-1 finding 7: a payment sent again alone (its batch did not run it, or its item failed there while it succeeds
 * alone) keeps the deadline its request had from its first broadcast: min(maxTimeoutSeconds, receipt timeout).
 */
const nonce = (n: number): Hex => `0x${n.toString(16).padStart(64, 'c')}`
const options = () => ({ requirementsRecord: {}, answerId: nextAnswerId(), caller: 'api:a', requestHash: 'digest' })

/**
 * Three payments: a first lone one holds the lane while two gather into a batch whose block comes `laterMs` after its
 * broadcast; the settler does not run PAYER's item (nonce 1), the other payer's (nonce 2) runs. Lone sends stay
 * unmined.
 */
const resentAfter = async (laterMs: number, how: 'notRun' | 'failed' = 'notRun') => {
  const d = makeDeps({ maxItems: 10 })
  d.token.state = { balance: 10_000_000n, authorizationUsed: false }
  // The batch's block comes `laterMs` after its broadcast, by the settle's clock (the queue's plus what the block
  // took).
  let later = 0
  const clock = { ...d.deps.clock, now: () => new Date(d.clock.now().getTime() + later) }
  // A payer's key (the fakes' default is a payer with code, which is never sent alone after its item failed).
  const signatures: TestDeps['signatures'] = {
    checkAuthorization: () => async () => E.right({ _tag: 'SignatureValid', byKey: true } as const),
  }
  const deps: TestDeps = { ...d.deps, clock, signatures }
  const waits = new Map<Hex, number>()
  const send = d.submitter.send
  Object.assign(d.submitter, {
    send: (prepared: PreparedTransfer, waitMs: number) => {
      waits.set(prepared.txHash, waitMs)
      return send(prepared)
    },
  })
  d.submitter.script = (prepared) => {
    if (!d.submitter.batchSizes.has(prepared.txHash))
      return E.right(
        prepared.accountNonce === 0n
          ? { _tag: 'Mined', receipt: { txHash: prepared.txHash, blockNumber: 42n, gasUsed: 1n, succeeded: true } }
          : { _tag: 'Unconfirmed' },
      )
    later += laterMs
    return E.right({ _tag: 'Mined', receipt: d.submitter.receiptOfBatch(prepared)! })
  }
  // Failed: in its batch only (its lone trial, the fakes' default, succeeds).
  const itsOutcome =
    how === 'notRun'
      ? { succeeded: false, notRun: true as const }
      : { succeeded: false, revertReason: "ECRecover: invalid signature 'v' value" }
  d.submitter.itemOutcome = (index, item) =>
    item.authorization.nonce === nonce(1) ? { index, ...itsOutcome } : { index, succeeded: true }
  const request = (n: number) => {
    const r = validRequest({ nonce: nonce(n) })
    return { ...r, requirements: { ...r.requirements, maxTimeoutSeconds: 20 } }
  }
  const release = d.submitter.holdSends()
  const first = settlePayment(request(0), options())(withEvm(deps))()
  await until(() => d.submitter.broadcasts.length === 1)
  const both = Promise.all([1, 2].map((n) => settlePayment(request(n), options())(withEvm(deps))()))
  await until(() => d.queued() === 3)
  d.clock.advance(d.windowMs)
  await until(() => d.submitter.broadcasts.length === 2)
  expect(d.submitter.batches).to.deep.equal([2])
  release()
  expect(E.isRight(await first)).to.equal(true)
  const [notRun, ran] = (await both).map((r): SettleOutcome => {
    if (E.isLeft(r)) throw new Error(r.left.reason)
    return r.right
  })
  const resent = d.submitter.broadcasts[2]!
  return {
    notRun: notRun!,
    ran: ran!,
    resent,
    waitOfResend: waits.get(resent.txHash),
    rowOfNotRun: [...d.journal.rows.values()].find((r) => r.nonce === nonce(1))!,
  }
}

describe('a payment sent again alone keeps its first deadline (docs/ARCHITECTURE.md §5.4, §5.7)', () => {
  it('its lone transaction waits only what is left of the 20 s its request allowed from the batch broadcast', async () => {
    const { notRun, ran, waitOfResend, resent, rowOfNotRun } = await resentAfter(12_000)
    expect(ran._tag).to.equal('Settled')
    expect(waitOfResend).to.equal(8_000)
    expect(notRun).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: resent.txHash })
    expect(rowOfNotRun).to.include({ state: 'submitted', txHash: resent.txHash })
  })

  it('an item that failed in its batch while it succeeds alone keeps it too', async () => {
    const { notRun, waitOfResend, resent } = await resentAfter(15_000, 'failed')
    expect(waitOfResend).to.equal(5_000)
    expect(notRun).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: resent.txHash })
  })

  it('its deadline already past: it is still broadcast, with the shortest wait a request may ask (1 s), and answered 202 with the new transaction', async () => {
    const { notRun, waitOfResend, resent } = await resentAfter(25_000)
    expect(waitOfResend).to.equal(1_000)
    expect(notRun).to.deep.equal({ _tag: 'Pending', payer: PAYER, txHash: resent.txHash })
  })
})
