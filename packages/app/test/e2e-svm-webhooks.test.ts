import { expect } from 'chai'
import { verifyTypedData, type Hex } from 'viem'
import { startSvmFacilitator, type SvmFacilitator } from './support/svm-facilitator.js'
import { getJson } from './support/json-client.js'
import { waitFor } from './support/wait-for.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

/**
 * A Solana payment's settlement events reach webhooks as an EVM payment's do (docs/ARCHITECTURE.md §5.9): pending,
 * confirmed, final, in order, naming its transfer method; the confirmed and final ones carry its signed receipt, the
 * one its lookup answers (issue 40).
 */
describe('Solana settlement events (webhooks): the local SVM, real app, Postgres', function () {
  this.timeout(120_000)
  let s: SvmFacilitator
  let hooks: WebhookReceiver
  before(async () => {
    hooks = await startWebhookReceiver()
    s = await startSvmFacilitator({
      WEBHOOKS: JSON.stringify([{ url: hooks.url, secrets: ['whsec-solana-0123456789abcdef'] }]),
      WEBHOOK_POLL_MS: '50',
    })
  })
  after(async () => {
    await s?.stop()
    await hooks?.close()
  })

  it('pending, confirmed and final, each once and in order; the confirmed and final events signed receipts', async () => {
    const payer = await s.svm.fundedAccount(5_000_000n)
    const payTo = await s.payee()
    const required = s.requirements(payTo)
    const paymentPayload = await s.officialPayment(payer, required)
    const settled = await s.f.post('settle', { x402Version: 2, paymentPayload, paymentRequirements: required })
    expect(settled.status, JSON.stringify(settled.body)).to.equal(200)
    const ofPayment = () => hooks.events().filter((event) => event.settlement.payer === payer.address)
    const events = await waitFor('the final event', () =>
      ofPayment().some((event) => event.kind === 'final') ? ofPayment() : undefined,
    )
    expect(events.map((event) => event.kind)).to.deep.equal(['pending', 'confirmed', 'final'])
    for (const event of events)
      expect(event.settlement).to.deep.include({
        transferMethod: 'transferChecked',
        payee: payTo,
        chainId: required.network,
      })
    const { body: supported } = await getJson(`${s.f.base}/supported`)
    const attestation = (supported.attestation as { current: Hex }).current
    const [, confirmed, final] = events
    for (const { receipt } of [confirmed!, final!]) {
      expect(receipt).to.have.nested.property('primaryType', 'SolanaSettlementReceipt')
      const typed = receipt as unknown as Parameters<typeof verifyTypedData>[0]
      expect(await verifyTypedData({ ...typed, address: attestation })).to.equal(true)
    }
    const lookup = await getJson(`${s.f.base}/settlements/${String(settled.body.transaction)}`)
    expect(lookup.body.receipt).to.deep.equal(final!.receipt)
  })
})
