import { expect } from 'chai'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc } from './support/chain-control.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

type Network = `${string}:${string}`

/**
 * Payloads made by the official clients (@x402/evm 2.27) for Permit2 `exact` and for `upto` decode, and are answered by
 * a rule (200, their own reason code) until settling them is built: nothing is claimed, nothing is sent.
 */
describe('x402 v2: Permit2 exact and upto payloads of the official clients are refused by a rule', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator()
  })
  after(() => f?.stop())

  const caip2 = (): Network => `eip155:${f.chain.chainId}`
  const requirements = (scheme: 'exact' | 'upto', extra: Record<string, unknown>): PaymentRequirements => ({
    scheme,
    network: caip2(),
    amount: '1000000',
    asset: f.chain.tokenAddress,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: f.domain.name, version: f.domain.version, assetTransferMethod: 'permit2', ...extra },
  })

  /**
   * The payer's signer; `reads` answers the client's chain reads (Permit2 allowance 0, EIP-2612 nonce 7) so that it
   * signs the eip2612GasSponsoring extension (the demo token has no `nonces`).
   */
  const signer = (payer: number, reads = false) =>
    toClientEvmSigner(
      privateKeyToAccount(f.chain.payers[payer]!.privateKey),
      reads ? { readContract: async ({ functionName }) => (functionName === 'allowance' ? 0n : 7n) } : undefined,
    )

  const pay = async (
    scheme: ExactEvmScheme | UptoEvmScheme,
    accepted: PaymentRequirements,
    extensions?: Record<string, unknown>,
  ): Promise<PaymentPayload> =>
    new x402Client()
      .register('eip155:*', scheme)
      .setSpendControls({ allowedAssets: [{ network: caip2(), asset: f.chain.tokenAddress }] })
      .createPaymentPayload({
        x402Version: 2,
        resource: { url: 'https://api.example/paid' },
        accepts: [accepted],
        ...(extensions ? { extensions } : {}),
      })

  const body = (payload: PaymentPayload, accepted: PaymentRequirements) => ({
    x402Version: 2,
    paymentPayload: payload,
    paymentRequirements: accepted,
  })

  const sentBy = async (account: string) => anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [account, 'latest'])

  const refusedByRule = async (payload: PaymentPayload, accepted: PaymentRequirements, reason: string) => {
    const payer = payloadFrom(payload)
    const sentBefore = await sentBy(f.chain.facilitator.address)
    const verified = await f.post('verify', body(payload, accepted))
    expect(verified.status).to.equal(200)
    expect(verified.body).to.deep.include({ isValid: false, invalidReason: reason })
    expect(String(verified.body.payer).toLowerCase()).to.equal(payer)
    expect(verified.body.invalidMessage)
      .to.be.a('string')
      .and.match(/paid here by "eip3009" only|upto/)
    const settled = await f.post('settle', body(payload, accepted), { 'Idempotency-Key': `k-${reason}-${payer}` })
    expect(settled.status).to.equal(200)
    expect(settled.body).to.deep.include({ success: false, errorReason: reason, transaction: '', network: caip2() })
    // The official facilitator client reads the same answer (it throws on anything but 2xx).
    const client = new HTTPFacilitatorClient({ url: f.base })
    expect(await client.verify(payload, accepted)).to.deep.include({ isValid: false, invalidReason: reason })
    expect(await client.settle(payload, accepted)).to.deep.include({ success: false, errorReason: reason })
    expect(await f.rows()).to.deep.equal([])
    expect(await sentBy(f.chain.facilitator.address)).to.equal(sentBefore)
  }

  it('exact with assetTransferMethod permit2 → 200 unsupported_asset_transfer_method, nothing claimed', async () => {
    const accepted = requirements('exact', {})
    const payload = await pay(new ExactEvmScheme(signer(0)), accepted)
    expect(payload.payload).to.have.property('permit2Authorization')
    await refusedByRule(payload, accepted, 'unsupported_asset_transfer_method')
  })

  it('exact permit2 with the eip2612GasSponsoring extension → the same refusal', async () => {
    const accepted = requirements('exact', {})
    const payload = await pay(new ExactEvmScheme(signer(1, true)), accepted, {
      eip2612GasSponsoring: { info: {}, schema: {} },
    })
    expect(payload.extensions).to.have.nested.property('eip2612GasSponsoring.info.signature')
    await refusedByRule(payload, accepted, 'unsupported_asset_transfer_method')
  })

  it('upto → 200 unsupported_scheme naming upto, nothing claimed', async () => {
    const accepted = requirements('upto', { facilitatorAddress: f.chain.facilitator.address })
    const payload = await pay(new UptoEvmScheme(signer(2)), accepted)
    expect(payload.payload).to.have.nested.property('permit2Authorization.witness.facilitator')
    await refusedByRule(payload, accepted, 'unsupported_scheme')
  })

  it('a malformed Permit2 payload is still a 400 naming its field', async () => {
    const accepted = requirements('exact', {})
    const payload = await pay(new ExactEvmScheme(signer(0)), accepted)
    const broken = structuredClone(payload) as unknown as { payload: { permit2Authorization: { witness: object } } }
    broken.payload.permit2Authorization.witness = { validAfter: '0' }
    const answer = await f.post('verify', body(broken as unknown as PaymentPayload, accepted))
    expect(answer.status).to.equal(400)
    expect(answer.body).to.deep.include({ invalidReason: 'invalid_payload' })
    expect(answer.body.invalidMessage).to.equal('paymentPayload.payload.permit2Authorization.witness.to: is required')
  })
})

const payloadFrom = (payload: PaymentPayload): string =>
  String((payload.payload as { permit2Authorization: { from: string } }).permit2Authorization.from).toLowerCase()
