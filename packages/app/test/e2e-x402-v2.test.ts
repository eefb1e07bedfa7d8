import { expect } from 'chai'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { privateKeyToAccount } from 'viem/accounts'
import { receiptOf, SETTLED_STATES } from './support/chain-control.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

describe('x402 v2: the official client packages against this facilitator', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let facilitator: HTTPFacilitatorClient
  // A spec-dialect NETWORK_ID of its own: the v2 dialect still speaks CAIP-2.
  before(async () => {
    f = await startTestFacilitator({ NETWORK_ID: 'demo-local' })
    facilitator = new HTTPFacilitatorClient({ url: f.base })
  })
  after(() => f?.stop())

  const caip2 = () => `eip155:${f.chain.chainId}`
  const requirements = (amount = '1000000') => ({
    scheme: 'exact',
    network: caip2() as `${string}:${string}`,
    amount,
    asset: f.chain.tokenAddress,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: f.domain.name, version: f.domain.version },
  })
  const pay = async (payer: number, accepted = requirements()) => {
    const client = new x402Client()
      .register(
        'eip155:*',
        new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(f.chain.payers[payer]!.privateKey))),
      )
      // The demo token is no default asset of the client's: it must be allowed, as a resource server's own token would
      // be.
      .setSpendControls({ allowedAssets: [{ network: caip2() as `${string}:${string}`, asset: f.chain.tokenAddress }] })
    return client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://api.example/paid' },
      accepts: [accepted],
    })
  }

  it('getSupported: kinds, extensions and signers beside the spec fields', async () => {
    const supported = await facilitator.getSupported()
    expect(supported.kinds).to.deep.equal([
      {
        x402Version: 2,
        scheme: 'exact',
        network: caip2(),
        extra: {
          name: f.domain.name,
          version: f.domain.version,
          asset: f.chain.tokenAddress,
          // Every token of the network (one here), MIN_AMOUNT's default of 1 unit.
          assets: [
            {
              address: f.chain.tokenAddress,
              symbol: f.chain.tokenSymbol,
              decimals: 6,
              name: f.domain.name,
              version: f.domain.version,
              minAmount: '1',
              transferMethods: ['eip3009'],
            },
          ],
        },
      },
    ])
    const signers = [f.chain.facilitator.address]
    expect(supported.signers).to.deep.equal({ 'eip155:*': signers, [caip2()]: signers })
    const raw = (await (await fetch(`${f.base}/supported`)).json()) as Record<string, unknown>
    expect(raw).to.include({ x402Version: '2.0', facilitator: f.chain.facilitator.address })
    expect(raw.networks).to.deep.equal(['demo-local'])
  })

  it('verify then settle a payment signed by x402Client: the transfer is on-chain and in the journal', async () => {
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    const payload = await pay(0)
    const verified = await facilitator.verify(payload, requirements())
    expect(verified).to.deep.include({ isValid: true, payer })
    const settled = await facilitator.settle(payload, requirements())
    expect(settled).to.deep.include({ success: true, payer, network: caip2() })
    expect((await receiptOf(f.chain.rpcUrl, settled.transaction))?.status).to.equal('0x1')
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
    const rows = await f.rows()
    expect(rows.find((r) => r.tx_hash === settled.transaction)).to.include({ payer, network: 'demo-local' })
    expect(rows.find((r) => r.tx_hash === settled.transaction)?.state).to.be.oneOf(SETTLED_STATES)
  })

  it('a refused payment comes back through the client as the v2 reason (and HTTP 200)', async () => {
    const payload = await pay(1, requirements('1000000'))
    const verified = await facilitator.verify(payload, requirements('2000000'))
    expect(verified).to.deep.include({ isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_value' })
    expect(verified.invalidMessage).to.match(/below the required/)
    const settled = await facilitator.settle(payload, requirements('2000000'))
    expect(settled).to.deep.include({
      success: false,
      errorReason: 'invalid_exact_evm_payload_authorization_value',
      transaction: '',
    })
  })

  it('a replayed settle is refused with the earlier transaction', async () => {
    const payload = await pay(2)
    const first = await facilitator.settle(payload, requirements())
    expect(first.success).to.equal(true)
    const replay = await facilitator.settle(payload, requirements())
    expect(replay).to.deep.include({
      success: false,
      errorReason: 'authorization_already_used',
      transaction: first.transaction,
    })
  })

  it('another network → invalid_network', async () => {
    const payload = await pay(1)
    const wrong = { ...requirements(), network: 'eip155:1' as `${string}:${string}` }
    expect(await facilitator.verify(payload, wrong)).to.deep.include({
      isValid: false,
      invalidReason: 'invalid_network',
    })
  })
})
