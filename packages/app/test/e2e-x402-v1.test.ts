import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import type { PaymentRequirements as V2Requirements } from '@x402/core/types'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { verifyTypedData } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { exact } from 'x402/schemes'
import { decodeXPaymentResponse } from 'x402/shared'
import { useFacilitator } from 'x402/verify'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'
import { receiptOf } from './support/chain-control.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import {
  legacyFetch,
  legacyWallet,
  PRICE,
  startLegacyResourceServer,
  v1Requirements,
  type LegacyResourceServer,
} from './support/legacy-x402-stack.js'
import { freshAddress, transfersTo } from './support/payments-on-chain.js'

// Issue 41: x402 v1 as the legacy packages speak it, on a chain x402 v1 names (base-sepolia's id, 84532), against
// Circle's USDC.
describe('x402 v1: the legacy clients (x402-fetch, x402-express, x402 1.x) against the facilitator', function () {
  this.timeout(180_000)
  let f: CircleUsdcFacilitator
  let shop: LegacyResourceServer
  const shopPayee = freshAddress()
  before(async () => {
    f = await startCircleUsdcFacilitator({}, { chainId: 84532 })
    shop = await startLegacyResourceServer(f, shopPayee)
  })
  after(async () => {
    await shop?.close()
    await f?.stop()
  })

  const rowsPaying = async (payTo: Address) => (await f.rows()).filter((row) => row.payee === payTo)

  it('x402-fetch pays x402-express: the resource, one transfer, its X-PAYMENT-RESPONSE, the journal row in v1 terms', async () => {
    const payer = f.chain.payers[0]!.address
    const payerBefore = await f.balanceOf(payer)
    const res = await legacyFetch(f, 0)(shop.url)
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ report: 'sunny' })
    const response = decodeXPaymentResponse(res.headers.get('x-payment-response')!)
    expect(response).to.include({ success: true, network: 'base-sepolia', payer })
    expect(await receiptOf(f.chain.rpcUrl, response.transaction)).to.include({ status: '0x1' })
    // Our signed receipt rides in v1's answer too, as in the other dialects, signed by the attestation key.
    const { receipt } = response as typeof response & { receipt: Parameters<typeof verifyTypedData>[0] }
    expect(receipt.message).to.include({ transactionHash: response.transaction })
    expect(await verifyTypedData({ ...receipt, address: privateKeyToAddress(TEST_ATTESTATION_KEY) })).to.equal(true)
    expect(await f.balanceOf(shopPayee)).to.equal(PRICE)
    expect(payerBefore - (await f.balanceOf(payer))).to.equal(PRICE)
    expect(await transfersTo(f, shopPayee)).to.equal(1)
    const [row, ...others] = await rowsPaying(shopPayee)
    expect(others).to.have.length(0)
    expect(row!.requirements).to.include({
      network: 'base-sepolia',
      maxAmountRequired: PRICE.toString(),
      resource: shop.url,
    })
  })

  // A keyless retry after the success was answered is told the authorization is used, with its transaction
  // (docs/ARCHITECTURE.md §5.2): whichever dialect asks, the journal holds one row.
  const usedBy = (transaction: string) => ({ success: false, errorReason: 'authorization_already_used', transaction })

  it('a v1 payment settled by ten at once and then again moves money once: one success, the rest name it', async () => {
    const payTo = freshAddress()
    const requirements = v1Requirements(f, payTo, 'http://shop.test/once')
    const payment = await exact.evm.createPayment(legacyWallet(f, 1), 1, requirements)
    const facilitator = useFacilitator({ url: f.base as `${string}://${string}` })
    expect(await facilitator.verify(payment, requirements)).to.include({ isValid: true })
    const answers = await Promise.all(Array.from({ length: 10 }, () => facilitator.settle(payment, requirements)))
    const [success, ...more] = answers.filter((answer) => answer.success)
    expect(more).to.have.length(0)
    expect(success).to.include({ network: 'base-sepolia', payer: f.chain.payers[1]!.address })
    for (const refused of answers.filter((answer) => !answer.success)) {
      expect(refused).to.include({ errorReason: 'authorization_already_used' })
    }
    expect(await facilitator.settle(payment, requirements)).to.include(usedBy(success!.transaction))
    expect(await transfersTo(f, payTo)).to.equal(1)
    expect(await f.balanceOf(payTo)).to.equal(PRICE)
    expect(await rowsPaying(payTo)).to.have.length(1)
  })

  it('a v1 and an x402 v2 request of one authorization, at once, move money once', async () => {
    const payTo = freshAddress()
    const requirements = v1Requirements(f, payTo, 'http://shop.test/both')
    const payment = await exact.evm.createPayment(legacyWallet(f, 2), 1, requirements)
    const v2Requirements: V2Requirements = {
      scheme: 'exact',
      network: 'eip155:84532',
      amount: requirements.maxAmountRequired,
      asset: requirements.asset,
      payTo: requirements.payTo,
      maxTimeoutSeconds: requirements.maxTimeoutSeconds,
      extra: requirements.extra ?? {},
    }
    const v2Payment = { x402Version: 2, accepted: v2Requirements, payload: payment.payload as Record<string, unknown> }
    const v2 = new HTTPFacilitatorClient({ url: f.base })
    const v1 = useFacilitator({ url: f.base as `${string}://${string}` })

    const [byV1, byV2] = await Promise.all([v1.settle(payment, requirements), v2.settle(v2Payment, v2Requirements)])
    const [success, ...more] = [byV1, byV2].filter((answer) => answer.success)
    expect(more).to.have.length(0)
    const refused = byV1.success ? byV2 : byV1
    expect(refused).to.include({ success: false, errorReason: 'authorization_already_used' })
    expect(await v1.settle(payment, requirements)).to.include({
      ...usedBy(success!.transaction),
      network: 'base-sepolia',
    })
    expect(await v2.settle(v2Payment, v2Requirements)).to.include({
      ...usedBy(success!.transaction),
      network: 'eip155:84532',
    })
    expect(await transfersTo(f, payTo)).to.equal(1)
    expect(await f.balanceOf(payTo)).to.equal(PRICE)
    expect(await rowsPaying(payTo)).to.have.length(1)
  })

  it('/supported names the v1 kind; a v1 payment on a network not served is refused, naming what v1 may pay on', async () => {
    const v1 = useFacilitator({ url: f.base as `${string}://${string}` })
    const { kinds } = await v1.supported()
    expect(kinds).to.deep.include({ x402Version: 1, scheme: 'exact', network: 'base-sepolia' })

    const payTo = freshAddress()
    const requirements = { ...v1Requirements(f, payTo, 'http://shop.test/elsewhere'), network: 'base' as const }
    const payment = await exact.evm.createPayment(legacyWallet(f, 0), 1, requirements)
    const answer = await f.post('settle', {
      x402Version: 1,
      paymentPayload: payment,
      paymentRequirements: requirements,
    })
    expect(answer.status).to.equal(400)
    expect(answer.body).to.include({
      success: false,
      errorReason: 'invalid_network',
      errorMessage:
        'paymentPayload.network: "base" is not served here; over x402 v1 this facilitator serves "base-sepolia"',
    })
    expect(await transfersTo(f, payTo)).to.equal(0)
  })
})
