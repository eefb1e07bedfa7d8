import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { x402V2Dialect } from '@x402-facilitator/adapters-http'
import { v2Body } from './support/bodies.js'
import { permit2Body, withExtensions, withPaymentId } from './support/payment-identifier-bodies.js'
import { servedNetwork } from './support/test-app.js'

const dialect = x402V2Dialect({ addressChecksum: (lower) => lower, networks: [servedNetwork] })
const ID = 'pay_0123456789abcdef0123456789abcdef'
const FIELD = 'paymentPayload.extensions.payment-identifier.info'

/** The decoded id, or the 400's reason code and message. */
const decode = (body: unknown) => {
  const decoded = dialect.decode(body)
  return E.isRight(decoded)
    ? { paymentId: decoded.right.paymentId }
    : { reasonCode: decoded.left.reasonCode, message: decoded.left.message }
}

describe('x402 v2 decoder: the payment-identifier extension (coinbase/x402 specs/extensions/payment_identifier.md)', () => {
  for (const [kind, body] of [
    ['EIP-3009', v2Body],
    ['Permit2', permit2Body],
  ] as const) {
    it(`${kind}: a good id passes through beside the request, which is the same as without it`, () => {
      const decoded = dialect.decode(withPaymentId(body(), { required: false, id: ID }))
      const plain = dialect.decode(body())
      expect(E.isRight(decoded) && E.isRight(plain)).to.equal(true)
      if (E.isLeft(decoded) || E.isLeft(plain)) return
      expect(decoded.right.paymentId).to.equal(ID)
      expect(decoded.right.request).to.deep.equal(plain.right.request)
      expect(plain.right).to.not.have.property('paymentId')
    })

    it(`${kind}: an id of 15 or 129 characters is refused, naming its length`, () => {
      for (const id of ['a'.repeat(15), 'b'.repeat(129)]) {
        expect(decode(withPaymentId(body(), { id }))).to.deep.equal({
          reasonCode: 'invalid_payment_identifier',
          message: `${FIELD}.id: expected 16 to 128 characters, got ${id.length}`,
        })
      }
      expect(decode(withPaymentId(body(), { id: 'c'.repeat(16) }))).to.deep.equal({ paymentId: 'c'.repeat(16) })
      expect(decode(withPaymentId(body(), { id: 'd'.repeat(128) }))).to.deep.equal({ paymentId: 'd'.repeat(128) })
    })

    it(`${kind}: an id with another character, or not a string, is refused`, () => {
      for (const id of [
        'pay_0123456789 abcdef',
        'pay_0123456789.abcdef',
        'pay_0123456789abcdé',
        'pay/0123456789abcdef',
      ]) {
        expect(decode(withPaymentId(body(), { id }))).to.deep.equal({
          reasonCode: 'invalid_payment_identifier',
          message: `${FIELD}.id: expected only the characters A-Z, a-z, 0-9, _ and -`,
        })
      }
      expect(decode(withPaymentId(body(), { id: 1234567890123456 }))).to.deep.equal({
        reasonCode: 'invalid_payment_identifier',
        message: `${FIELD}.id: expected a string`,
      })
    })

    it(`${kind}: required: true without an id is refused; required: false without one is no id`, () => {
      expect(decode(withPaymentId(body(), { required: true }))).to.deep.equal({
        reasonCode: 'payment_identifier_required',
        message: `${FIELD}.id: required (info.required is true)`,
      })
      expect(decode(withPaymentId(body(), { required: false }))).to.deep.equal({ paymentId: undefined })
      expect(decode(withPaymentId(body(), { required: true, id: ID }))).to.deep.equal({ paymentId: ID })
    })

    it(`${kind}: an extension without an info object, or a required that is not a boolean, is refused`, () => {
      for (const extension of ['pay_0123456789abcdef', { id: ID }, { info: [ID] }]) {
        expect(decode(withExtensions(body(), { 'payment-identifier': extension }))).to.deep.equal({
          reasonCode: 'invalid_payment_identifier',
          message: `${FIELD}: expected an object`,
        })
      }
      expect(decode(withPaymentId(body(), { required: 'yes', id: ID }))).to.deep.equal({
        reasonCode: 'invalid_payment_identifier',
        message: `${FIELD}.required: expected a boolean`,
      })
    })

    it(`${kind}: other extensions alone carry no id`, () => {
      expect(decode(withExtensions(body(), { bazaar: { info: { id: ID } } }))).to.deep.equal({ paymentId: undefined })
    })
  }

  it('a malformed payment still names its own field first', () => {
    const body = withPaymentId(v2Body(), { id: 'short' })
    const broken = { ...body, paymentRequirements: { ...body.paymentRequirements, payTo: 'nobody' } }
    expect(decode(broken)).to.have.property('reasonCode').that.is.not.equal('invalid_payment_identifier')
  })
})
