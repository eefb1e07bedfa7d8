import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload } from '@x402/core/types'
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
  paymentIdentifierResourceServerExtension,
} from '@x402/extensions/payment-identifier'
import { anvilRpc } from './support/chain-control.js'
import {
  exactRequirements,
  minePendingTransfer,
  officialPayment,
  resourceServerMiningOnPending,
} from './support/official-resource-server.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'

/**
 * Issue 27, docs/ARCHITECTURE.md §5.2: a 202 under a `payment-identifier` id is awaited, never replayed: the official
 * resource server's retry (same payload, so the same id) gets the transaction's success; a later call, the stored one.
 */
describe('e2e: a settlement_pending settle under a payment-identifier id (official resource server, anvil)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    // Recovery far away: only the retry learns of the receipt; RECEIPT_TIMEOUT_SECONDS bounds the first settle's wait.
    f = await startTestFacilitator({ RECOVERY_INTERVAL_MS: '600000', RECEIPT_TIMEOUT_SECONDS: '2' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  const requirements = () => exactRequirements(f)
  const pay = async (payer: number, id: string): Promise<PaymentPayload> => {
    const payload = await officialPayment(f, payer, {
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(true),
    })
    appendPaymentIdentifierToExtensions(payload.extensions!, id)
    return payload
  }
  const mine = () => minePendingTransfer(f)
  const metricsUrl = () => `${new URL(f.base).origin}/metrics`

  it('202, the block arrives, the automatic retry under the id: success with that transaction; later, the stored answer', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    const official = new HTTPFacilitatorClient({ url: f.base })
    const { server, answers } = await resourceServerMiningOnPending(f, official)
    const payload = await pay(0, 'order_pending_0000000001')

    const settled = await server.settlePayment(payload, requirements())

    expect(answers.map((a) => a.errorReason ?? 'success')).to.deep.equal(['settlement_pending', 'success'])
    expect(settled).to.include({ success: true, transaction: answers[0]!.transaction, payer })
    const later = await official.settle(payload, requirements())
    expect(later).to.include({ success: true, transaction: settled.transaction })
    expect(later.extra).to.deep.include({ replayed: true })
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
  })

  it('a retry under the id while the transfer is still in the pool is 202 again, not a replayed answer', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payload = await pay(1, 'order_pending_0000000002')
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements() }
    const first = await f.post('settle', body)
    expect(first.status).to.equal(202)
    const waiting = await f.post('settle', body)
    expect(waiting.status).to.equal(202)
    expect(waiting.body).to.deep.include({ errorReason: 'settlement_pending', transaction: first.body.transaction })
    expect(waiting.headers.get('idempotency-replayed')).to.equal(null)
    await mine()
    const settled = await f.post('settle', body)
    expect(settled.body).to.deep.include({ success: true, transaction: first.body.transaction })
  })
  it('two concurrent paid requests carrying one payment under one id run the protected handler once; a retry after a lost answer gets its resource', async () => {
    // The resource server as deployed: x402ResourceServer with the payment-identifier extension, settling before its
    // handler (the `upfront` flow: the settle's answer decides whether the handler runs).
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: f.base }))
    server.registerExtension(paymentIdentifierResourceServerExtension)
    await server.initialize()
    const declared = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(true) }
    let handlerRuns = 0
    const paidRequest = async (payload: PaymentPayload) => {
      const settled = await server.settlePayment(payload, requirements(), declared).catch(() => undefined)
      if (settled?.success === true) handlerRuns++
      return settled?.success === true
    }
    const payer = f.chain.payers[2]!.address
    const before = await f.balanceOf(payer)
    const payload = await pay(2, 'order_concurrent_00000001')

    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const both = Promise.all([paidRequest(payload), paidRequest(payload)])
    const settlesInFlight = async () =>
      Number(/^facilitator_settles_in_flight(?:\{[^}]*\})? (\d+)/m.exec(await (await fetch(metricsUrl())).text())?.[1])
    await waitFor('both settles in the facilitator', async () => ((await settlesInFlight()) === 2 ? true : undefined))
    await mine()
    expect((await both).sort()).to.deep.equal([false, true])
    expect(handlerRuns).to.equal(1)

    // The answer lost on its way (the resource server crashed, the client hung up): the same payment again, later.
    expect(await paidRequest(payload)).to.equal(true)
    expect(handlerRuns).to.equal(2)
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
  })
})
