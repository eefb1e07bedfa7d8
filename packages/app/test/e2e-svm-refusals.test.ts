import { expect } from 'chai'
import { address, type KeyPairSigner } from '@solana/kit'
import { HTTPFacilitatorClient } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { startSvmFacilitator, type SvmFacilitator } from './support/svm-facilitator.js'
import { computeBudget, hostilePayment, transferChecked } from './support/svm-hostile-payment.js'

/**
 * Every Solana payer may be an adversary who builds its own transaction to make our fee payer pay, sign or lose
 * something: each such payment is refused at verify and at settle with its reason, and our fee payer signs and spends
 * nothing (issue 40). Honest payments the official client builds, tampered in their requirements, are refused too.
 */
describe('hostile Solana payments are refused before anything is signed (app, the local SVM)', function () {
  this.timeout(180_000)
  let s: SvmFacilitator
  let facilitator: HTTPFacilitatorClient
  let payer: KeyPairSigner
  let payTo: string
  before(async () => {
    s = await startSvmFacilitator()
    facilitator = new HTTPFacilitatorClient({ url: s.f.base })
    payer = await s.svm.fundedAccount(50_000_000n)
    payTo = await s.payee()
    // Our fee payer holds the mint too: a drain would take it.
    await s.svm.openTokenAccount(s.feePayer.address)
  })
  after(() => s?.stop())

  const payloadOf = (transaction: string, accepted: PaymentRequirements): PaymentPayload => ({
    x402Version: 2,
    resource: { url: 'https://api.example/paid' },
    accepted,
    payload: { transaction },
  })

  /** Verify and settle both refuse it with `reason`; no lamport of our fee payer and no token of anyone moved. */
  const refusedBoth = async (payload: PaymentPayload, required: PaymentRequirements, reason: string) => {
    const lamports = s.svm.svm.getBalance(s.feePayer.address)
    const payeeTokens = await s.svm.tokenBalanceOf(address(payTo))
    expect(await facilitator.verify(payload, required)).to.deep.include({ isValid: false, invalidReason: reason })
    const settled = await facilitator.settle(payload, required).catch((error: Error) => error)
    expect(settled instanceof Error ? settled.message : settled.errorReason).to.include(reason)
    expect(s.svm.svm.getBalance(s.feePayer.address)).to.equal(lamports)
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(payeeTokens)
  }

  it('our fee payer as the transfer source and authority (a drain of our tokens): refused, nothing signed', async () => {
    const required = s.requirements(payTo, '1000')
    const drain = await transferChecked(s, s.feePayer.address, s.feePayer.address, payTo, 1000n)
    const transaction = await hostilePayment(s, [...computeBudget(), drain])
    await refusedBoth(
      payloadOf(transaction, required),
      required,
      'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
    )
  })

  it('a second transfer after the paid one: refused', async () => {
    const required = s.requirements(payTo, '1000')
    const transaction = await hostilePayment(s, [
      ...computeBudget(),
      await transferChecked(s, payer.address, payer, payTo, 1000n),
      await transferChecked(s, payer.address, payer, payTo, 1000n),
    ])
    await refusedBoth(
      payloadOf(transaction, required),
      required,
      'invalid_exact_svm_payload_unknown_fourth_instruction',
    )
  })

  it('a compute unit price above the cap (our fee payer would pay the priority fee): refused', async () => {
    const required = s.requirements(payTo, '1000')
    const transaction = await hostilePayment(s, [
      ...computeBudget(20_000, 5_000_001n),
      await transferChecked(s, payer.address, payer, payTo, 1000n),
    ])
    await refusedBoth(
      payloadOf(transaction, required),
      required,
      'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
    )
  })

  it("the official client's payment against other requirements: another amount, another payee, another fee payer", async () => {
    const signed = await s.officialPayment(payer, s.requirements(payTo, '1000'))
    const transaction = String(signed.payload.transaction)
    const otherAmount = s.requirements(payTo, '2000')
    await refusedBoth(payloadOf(transaction, otherAmount), otherAmount, 'invalid_exact_svm_payload_amount_mismatch')
    const elsewhere = s.requirements(await s.payee(), '1000')
    await refusedBoth(payloadOf(transaction, elsewhere), elsewhere, 'invalid_exact_svm_payload_recipient_mismatch')
    const notOurs = { ...s.requirements(payTo, '1000'), extra: { feePayer: payer.address } }
    await refusedBoth(
      payloadOf(transaction, notOurs),
      notOurs,
      'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
    )
  })

  it('a body that is not a transaction: refused as undecodable, never a 5xx, naming no payer', async () => {
    const required = s.requirements(payTo, '1000')
    const verified = await facilitator.verify(payloadOf('AAAA', required), required)
    expect(verified.payer).to.equal(undefined)
    await refusedBoth(
      payloadOf('AAAA', required),
      required,
      'invalid_exact_svm_payload_transaction_could_not_be_decoded',
    )
  })
})
