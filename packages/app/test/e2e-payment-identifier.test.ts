import { expect } from 'chai'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier'
import { privateKeyToAccount } from 'viem/accounts'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * Issue 27, docs/ARCHITECTURE.md §5.2: the `payment-identifier` id of a payload made by the official 2.27 client and
 * @x402/extensions is the settle's Idempotency-Key, on real anvil and Postgres.
 */
describe('e2e: payment-identifier with the official client', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let facilitator: HTTPFacilitatorClient
  before(async () => {
    f = await startTestFacilitator()
    facilitator = new HTTPFacilitatorClient({ url: f.base })
  })
  after(() => f?.stop())

  const caip2 = () => `eip155:${f.chain.chainId}` as `${string}:${string}`
  const requirements = () => ({
    scheme: 'exact',
    network: caip2(),
    amount: '1000000',
    asset: f.chain.tokenAddress,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: f.domain.name, version: f.domain.version },
  })
  /** A payload of payer `payer` for a 402 declaring the extension (`required`); with `id`, as the client adds it. */
  const pay = async (payer: number, o: { id?: string; required?: boolean } = {}): Promise<PaymentPayload> => {
    const payload = await new x402Client()
      .register(
        'eip155:*',
        new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(f.chain.payers[payer]!.privateKey))),
      )
      .setSpendControls({ allowedAssets: [{ network: caip2(), asset: f.chain.tokenAddress }] })
      .createPaymentPayload({
        x402Version: 2,
        resource: { url: 'https://api.example/paid' },
        accepts: [requirements()],
        extensions: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(o.required ?? false) },
      })
    if (o.id !== undefined) appendPaymentIdentifierToExtensions(payload.extensions!, o.id)
    return payload
  }
  const body = (payload: PaymentPayload) => ({
    x402Version: 2,
    paymentPayload: payload,
    paymentRequirements: requirements(),
  })
  const settleError = async (settle: Promise<unknown>) =>
    settle.then(
      () => expect.fail('settle answered 2xx'),
      (error: { statusCode?: number; errorReason?: string }) => ({
        status: error.statusCode,
        reason: error.errorReason,
      }),
    )
  const rowsPaying = async (payer: number) =>
    (await f.rows()).filter((row) => row.payer === f.chain.payers[payer]!.address)

  it('verify then settle with an id; the same payment again gets the stored answer, replayed, charged once', async () => {
    const id = generatePaymentId()
    const payload = await pay(0, { id })
    expect(payload.extensions).to.have.nested.property(`${PAYMENT_IDENTIFIER}.info.id`, id)
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    expect(await facilitator.verify(payload, requirements())).to.deep.include({ isValid: true, payer })
    const first = await facilitator.settle(payload, requirements())
    expect(first).to.deep.include({ success: true, payer })
    expect(first.extra).to.not.have.property('replayed')
    const again = await facilitator.settle(payload, requirements())
    expect(again).to.deep.include({ success: true, transaction: first.transaction, payer })
    expect(again.extra).to.deep.include({ replayed: true })
    // The raw answer says so at the top and in the header; the same payment under the header alone is the same key.
    const byHeader = await f.post('settle', body({ ...payload, extensions: {} }), { 'idempotency-key': id })
    expect(byHeader.headers.get('idempotency-replayed')).to.equal('true')
    expect(byHeader.body).to.deep.include({ success: true, replayed: true, transaction: first.transaction })
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
    expect((await rowsPaying(0)).map((row) => row.tx_hash)).to.deep.equal([first.transaction])
  })

  it('the same id with another payment → 409 idempotency_key_reused, nothing sent; a fresh id settles it', async () => {
    const id = generatePaymentId()
    const first = await facilitator.settle(await pay(1, { id }), requirements())
    expect(first.success).to.equal(true)
    const payer = f.chain.payers[1]!.address
    const before = await f.balanceOf(payer)
    const another = await pay(1, { id })
    expect(await settleError(facilitator.settle(another, requirements()))).to.deep.equal({
      status: 409,
      reason: 'idempotency_key_reused',
    })
    expect(await f.balanceOf(payer)).to.equal(before)
    expect(await rowsPaying(1)).to.have.length(1)
    const fresh = {
      ...another,
      extensions: { [PAYMENT_IDENTIFIER]: { info: { required: false, id: generatePaymentId() } } },
    }
    expect(await facilitator.settle(fresh, requirements())).to.deep.include({ success: true })
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
  })

  it('an id and an Idempotency-Key header that differ → 400 idempotency_key_mismatch, nothing sent', async () => {
    const id = generatePaymentId()
    const payload = await pay(2, { id })
    const payer = f.chain.payers[2]!.address
    const before = await f.balanceOf(payer)
    const mismatch = await f.post('settle', body(payload), { 'idempotency-key': generatePaymentId() })
    expect(mismatch.status).to.equal(400)
    expect(mismatch.body).to.deep.include({ success: false, errorReason: 'idempotency_key_mismatch' })
    expect(await f.balanceOf(payer)).to.equal(before)
    expect(await rowsPaying(2)).to.have.length(0)
    // The header equal to the id is one key: it settles.
    const same = await f.post('settle', body(payload), { 'idempotency-key': id })
    expect(same.body).to.deep.include({ success: true })
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
  })

  it('required: true without an id, or a malformed id → 400 naming the field, nothing sent', async () => {
    const payer = f.chain.payers[2]!.address
    const before = await f.balanceOf(payer)
    expect(await settleError(facilitator.settle(await pay(2, { required: true }), requirements()))).to.deep.equal({
      status: 400,
      reason: 'payment_identifier_required',
    })
    const short = await pay(2)
    const malformed = { ...short, extensions: { [PAYMENT_IDENTIFIER]: { info: { required: false, id: 'pay_short' } } } }
    const answer = await f.post('settle', body(malformed))
    expect(answer.status).to.equal(400)
    expect(answer.body).to.deep.include({
      success: false,
      errorReason: 'invalid_payment_identifier',
      errorMessage: 'paymentPayload.extensions.payment-identifier.info.id: expected 16 to 128 characters, got 9',
    })
    expect(await f.balanceOf(payer)).to.equal(before)
  })
})
