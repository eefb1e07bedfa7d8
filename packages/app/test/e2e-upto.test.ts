import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import { UptoEvmScheme } from '@x402/evm/upto/server'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { verifyTypedData } from 'viem'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'

/**
 * `upto` end to end (issue 26): payloads made by @x402/evm 2.27's `UptoEvmScheme`, settled through x402's upto proxy
 * by the key the witness names, for the amount the resource server asks (never the maximum).
 */
describe('e2e: upto with the official client', function () {
  this.timeout(120_000)
  let f: Permit2Facilitator
  // A minimum above 1 unit: an upto settle may charge 0 (waived) or at least this, nothing between.
  const MIN_AMOUNT = 1_000n
  before(async () => {
    f = await startPermit2Facilitator({ MIN_AMOUNT: MIN_AMOUNT.toString() })
  })
  after(() => f?.stop())

  const key = () => f.chain.facilitator.address as Address
  const payer = (i: number) => f.chain.payers[i]!.address as Address

  it('verify judges the maximum; settle charges less, once; the answer carries the amount', async () => {
    const maximum = f.requirements('upto', 5_000_000n)
    const payload = await f.pay(0, maximum)
    expect(payload.payload).to.have.nested.property('permit2Authorization.witness.facilitator')
    expect((await f.post('verify', f.body(payload, maximum))).body).to.deep.include({ isValid: true })
    const [payerBefore, payeeBefore] = [await f.tokenBalance(payer(0)), await f.tokenBalance(PAYEE)]
    const used = { ...maximum, amount: '1234567' }
    const settled = await f.post('settle', f.body(payload, used))
    expect(settled.status).to.equal(200)
    expect(settled.body).to.deep.include({ success: true, amount: '1234567', network: f.caip2 })
    // Its receipt states the amount moved and the maximum signed, and verifies against /supported's attestation key.
    const receipt = (settled.body.extensions as Record<string, Parameters<typeof verifyTypedData>[0]>)[
      'facilitator-receipt'
    ]!
    expect(receipt.message).to.include({
      scheme: 'upto',
      transferMethod: 'permit2',
      value: '1234567',
      maxAmount: '5000000',
      payer: payer(0),
      transactionHash: settled.body.transaction,
    })
    const supported = (await (await fetch(`${f.base}/supported`)).json()) as { attestation: { current: Address } }
    expect(await verifyTypedData({ ...receipt, address: supported.attestation.current })).to.equal(true)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_234_567n)
    expect(await f.tokenBalance(payer(0))).to.equal(payerBefore - 1_234_567n)
    // A second settle of the same authorization, whatever amount it asks, moves nothing.
    const sent = await f.sentBy(key())
    for (const amount of ['1234567', '5000000']) {
      const again = await f.post('settle', f.body(payload, { ...maximum, amount }))
      expect(again.body).to.deep.include({ success: false, errorReason: 'authorization_already_used' })
    }
    expect(await f.sentBy(key())).to.equal(sent)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_234_567n)
    const [row] = (await f.rows()).filter((r) => r.tx_hash === settled.body.transaction)
    expect(row).to.deep.include({ value: '1234567' })
    expect(row!.state).to.be.oneOf(['confirmed', 'final'])
  })

  it('more than the maximum is refused before any gas', async () => {
    const maximum = f.requirements('upto', 1_000_000n)
    const payload = await f.pay(1, maximum)
    const sent = await f.sentBy(key())
    const over = await f.post('settle', f.body(payload, { ...maximum, amount: '1000001' }))
    expect(over.body).to.deep.include({
      success: false,
      errorReason: 'invalid_upto_evm_payload_settlement_exceeds_amount',
    })
    expect(await f.sentBy(key())).to.equal(sent)
  })

  it('a charge above 0 but below MIN_AMOUNT is refused before any gas (invalid_payment_requirements); the minimum settles', async () => {
    const maximum = f.requirements('upto', 1_000_000n)
    const payload = await f.pay(1, maximum)
    const sent = await f.sentBy(key())
    for (const amount of [1n, MIN_AMOUNT - 1n]) {
      const below = await f.post('settle', f.body(payload, { ...maximum, amount: amount.toString() }))
      expect(below.body).to.deep.include({ success: false, errorReason: 'invalid_payment_requirements' })
    }
    expect(await f.sentBy(key())).to.equal(sent)
    const atMinimum = await f.post('settle', f.body(payload, { ...maximum, amount: MIN_AMOUNT.toString() }))
    expect(atMinimum.body).to.deep.include({ success: true, amount: MIN_AMOUNT.toString() })
  })

  it('0: success without a transaction, journalled waived; the same settle again gets the stored answer', async () => {
    const maximum = f.requirements('upto', 3_000_000n)
    const payload = await f.pay(1, maximum)
    const nothing = { ...maximum, amount: '0' }
    const sent = await f.sentBy(key())
    const payeeBefore = await f.tokenBalance(PAYEE)
    const waived = await f.post('settle', f.body(payload, nothing))
    expect(waived.body).to.deep.include({ success: true, transaction: '', amount: '0' })
    expect(waived.body).not.to.have.property('extensions') // nothing moved: no receipt
    const replayed = await f.post('settle', f.body(payload, nothing))
    expect(replayed.body).to.deep.include({ success: true, transaction: '', amount: '0' })
    // Charging it afterwards is refused: the row keeps the authorization from any later settle.
    const later = await f.post('settle', f.body(payload, { ...maximum, amount: '1000' }))
    expect(later.body).to.deep.include({ success: false, errorReason: 'authorization_already_used' })
    expect(await f.sentBy(key())).to.equal(sent)
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore)
    const waivedRows = (await f.rows()).filter((r) => r.state === 'waived')
    expect(waivedRows).to.have.length(1)
    expect(waivedRows[0]).to.deep.include({ value: '0', tx_hash: null })
  })

  it('a witness naming a key that is not ours: upto_facilitator_mismatch at verify and settle, nothing sent', async () => {
    const maximum = f.requirements('upto', 1_000_000n, { facilitatorAddress: `0x${'77'.repeat(20)}` })
    const payload = await f.pay(0, maximum)
    const sent = await f.sentBy(key())
    const verified = await f.post('verify', f.body(payload, maximum))
    expect(verified.body).to.deep.include({ isValid: false, invalidReason: 'upto_facilitator_mismatch' })
    const settled = await f.post('settle', f.body(payload, maximum))
    expect(settled.body).to.deep.include({ success: false, errorReason: 'upto_facilitator_mismatch' })
    expect(await f.sentBy(key())).to.equal(sent)
  })

  it("the official resource server: /supported's upto kind names our key, and its partial settle charges that", async () => {
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: f.base })).register(
      f.caip2,
      new UptoEvmScheme(),
    )
    await server.initialize()
    const [required] = await server.buildPaymentRequirements({
      scheme: 'upto',
      payTo: PAYEE,
      network: f.caip2,
      price: { amount: '2000000', asset: f.asset, extra: { name: f.domain.name, version: f.domain.version } },
    })
    expect(required!.extra).to.deep.include({ assetTransferMethod: 'permit2' })
    expect(String(required!.extra.facilitatorAddress).toLowerCase()).to.equal(key())
    const payload = await f.pay(0, required!)
    expect(await server.verifyPayment(payload, required!)).to.deep.include({ isValid: true })
    const payeeBefore = await f.tokenBalance(PAYEE)
    const settled = await server.settlePayment(payload, required!, undefined, undefined, { amount: '700000' })
    expect(settled).to.deep.include({ success: true, amount: '700000' })
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 700_000n)
  })
})
