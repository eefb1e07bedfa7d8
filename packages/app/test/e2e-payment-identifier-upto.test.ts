import { expect } from 'chai'
import type { PaymentPayload } from '@x402/core/types'
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'

/**
 * Issue 27, docs/ARCHITECTURE.md §5.2: a Permit2 payload (@x402/evm 2.27's `UptoEvmScheme` and `ExactEvmScheme`)
 * carries `payment-identifier` too; for `upto` the amount charged is part of the payment, so the same id with another
 * amount is another payment.
 */
describe('e2e: payment-identifier on Permit2 payloads (upto and exact)', function () {
  this.timeout(120_000)
  let f: Permit2Facilitator
  before(async () => {
    f = await startPermit2Facilitator()
  })
  after(() => f?.stop())

  const key = () => f.chain.facilitator.address as Address
  const payer = (i: number) => f.chain.payers[i]!.address as Address
  /** The payload as the client leaves it for a 402 declaring the extension: the id added by @x402/extensions. */
  const withId = (payload: PaymentPayload, id: string): PaymentPayload => ({
    ...payload,
    extensions: appendPaymentIdentifierToExtensions(
      { ...payload.extensions, [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension() },
      id,
    ),
  })

  it('upto: the same id and amount is the stored answer; the same id with another amount → 409, charged once', async () => {
    const id = generatePaymentId()
    const maximum = f.requirements('upto', 5_000_000n)
    const payload = withId(await f.pay(0, maximum), id)
    // Verify judges the maximum with the same id: it settles nothing and keys nothing.
    expect((await f.post('verify', f.body(payload, maximum))).body).to.deep.include({ isValid: true })
    const [payerBefore, payeeBefore] = [await f.tokenBalance(payer(0)), await f.tokenBalance(PAYEE)]
    const used = { ...maximum, amount: '1234567' }
    const first = await f.post('settle', f.body(payload, used))
    expect(first.body).to.deep.include({ success: true, amount: '1234567' })
    const sent = await f.sentBy(key())
    const again = await f.post('settle', f.body(payload, used))
    expect(again.headers.get('idempotency-replayed')).to.equal('true')
    expect(again.body).to.deep.include({
      success: true,
      replayed: true,
      amount: '1234567',
      transaction: first.body.transaction,
    })
    const more = await f.post('settle', f.body(payload, { ...maximum, amount: '2000000' }))
    expect(more.status).to.equal(409)
    expect(more.body).to.deep.include({ success: false, errorReason: 'idempotency_key_reused' })
    expect(await f.sentBy(key())).to.equal(sent)
    expect(await f.tokenBalance(payer(0))).to.equal(payerBefore - 1_234_567n)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_234_567n)
  })

  it('upto: an id and an Idempotency-Key header that differ → 400 idempotency_key_mismatch, nothing sent', async () => {
    const maximum = f.requirements('upto', 1_000_000n)
    const payload = withId(await f.pay(1, maximum), generatePaymentId())
    const sent = await f.sentBy(key())
    const answer = await f.post('settle', f.body(payload, { ...maximum, amount: '1000' }), {
      'idempotency-key': generatePaymentId(),
    })
    expect(answer.status).to.equal(400)
    expect(answer.body).to.deep.include({ success: false, errorReason: 'idempotency_key_mismatch' })
    expect(await f.sentBy(key())).to.equal(sent)
  })

  it('Permit2 exact: a replay under the id is the stored answer, moved once', async () => {
    const accepted = f.requirements('exact', 1_500_000n)
    const payload = withId(await f.pay(1, accepted), generatePaymentId())
    const payerBefore = await f.tokenBalance(payer(1))
    const first = await f.post('settle', f.body(payload, accepted))
    expect(first.body).to.deep.include({ success: true })
    const again = await f.post('settle', f.body(payload, accepted))
    expect(again.body).to.deep.include({ success: true, replayed: true, transaction: first.body.transaction })
    expect(await f.tokenBalance(payer(1))).to.equal(payerBefore - 1_500_000n)
  })
})
