import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  explainAnyRefusal,
  partiesAreNotDenied,
  settlePayment,
  verifyPayment,
  type AddressScreen,
  type PaymentRequest,
} from '@x402-facilitator/domain'
import { PAYER, makeDeps, policy, validRequest, withEvm } from './fakes.js'

const screenOf = (...denied: string[]): AddressScreen => ({ isDenied: (a) => denied.includes(a) })
const PAYEE = validRequest().payload.authorization.to

const verdictOf = async (screen: AddressScreen, request: PaymentRequest = validRequest()) => {
  const d = makeDeps()
  const result = await verifyPayment(request)({ ...d.deps, screen })()
  if (E.isLeft(result)) throw new Error(`unexpected infrastructure failure ${result.left.reason}`)
  return { outcome: result.right, chainReads: d.token.reads }
}

describe('rule S1: the operator deny list (docs/ARCHITECTURE.md §3)', () => {
  it('neither side denied (or no list): passes', () => {
    expect(E.isRight(partiesAreNotDenied({ from: PAYER, to: PAYEE }, screenOf()))).to.equal(true)
    expect(E.isRight(partiesAreNotDenied({ from: PAYER, to: PAYEE }, undefined))).to.equal(true)
  })

  it('a denied payer: address_denied naming the payer, before any chain read', async () => {
    const { outcome, chainReads } = await verdictOf(screenOf(PAYER))
    expect(outcome).to.deep.equal({
      _tag: 'Invalid',
      payer: PAYER,
      failure: { _tag: 'AddressDenied', side: 'payer', address: PAYER },
    })
    expect(explainAnyRefusal(outcome._tag === 'Invalid' ? outcome.failure : ({} as never), policy)).to.deep.equal({
      reasonCode: 'address_denied',
      message: `the payer ${PAYER} is denied by this facilitator's operator: nothing was sent`,
    })
    expect(chainReads).to.equal(0)
  })

  it('a denied payee: address_denied naming the payee; both denied: the payer is named', async () => {
    const payee = await verdictOf(screenOf(PAYEE))
    expect(payee.outcome._tag === 'Invalid' && payee.outcome.failure).to.deep.equal({
      _tag: 'AddressDenied',
      side: 'payee',
      address: PAYEE,
    })
    expect(payee.chainReads).to.equal(0)
    const both = await verdictOf(screenOf(PAYEE, PAYER))
    expect(both.outcome._tag === 'Invalid' && both.outcome.failure).to.include({ side: 'payer' })
  })

  it("the request's own rules come first: a wrong network is answered before a denied payer", async () => {
    const request = validRequest()
    const wrong = { ...request, payload: { ...request.payload, network: 'elsewhere' } }
    const { outcome } = await verdictOf(screenOf(PAYER), wrong)
    expect(outcome._tag === 'Invalid' && outcome.failure._tag).to.equal('WrongNetwork')
  })

  it('settle of a denied payer: refused, no row claimed, nothing broadcast', async () => {
    const d = makeDeps()
    const options = { requirementsRecord: { amount: '1000000' }, answerId: 'answer' }
    const result = await settlePayment(validRequest(), options)(withEvm({ ...d.deps, screen: screenOf(PAYER) }))()
    expect(E.isRight(result) && result.right).to.deep.equal({
      _tag: 'Refused',
      payer: PAYER,
      refusal: { _tag: 'AddressDenied', side: 'payer', address: PAYER },
    })
    expect(d.journal.rows.size).to.equal(0)
    expect(d.submitter.broadcasts).to.have.length(0)
  })
})
