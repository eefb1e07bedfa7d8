import { expect } from 'chai'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { verifyTypedData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'
import { anvilRpc } from './support/chain-control.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'

interface Receipt {
  readonly domain: Record<string, unknown>
  readonly types: Record<string, unknown>
  readonly primaryType: string
  readonly message: Record<string, string>
  readonly signature: Hex
}

// A signature altered into no curve point makes viem throw: a failed verification all the same.
const verifies = (receipt: Receipt, address: Hex) =>
  verifyTypedData({ ...(receipt as unknown as Parameters<typeof verifyTypedData>[0]), address }).catch(() => false)

/** Every message field changed in turn (the last hex digit, a decimal + 1, a word extended). */
const alterations = (receipt: Receipt): Array<[string, Receipt]> =>
  Object.entries(receipt.message).map(([field, value]) => {
    const other = value.startsWith('0x')
      ? `${value.slice(0, -1)}${value.endsWith('0') ? '1' : '0'}`
      : /^[0-9]+$/.test(value)
        ? (BigInt(value) + 1n).toString()
        : `${value}x`
    return [field, { ...receipt, message: { ...receipt.message, [field]: other } }]
  })

describe('signed settlement receipts (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let attestation: { current: Hex; retired: Hex[] }
  const retired: Hex = '0x00000000000000000000000000000000000a11ce'
  before(async () => {
    f = await startTestFacilitator({ ATTESTATION_RETIRED_ADDRESSES: retired })
    const supported = (await (await fetch(`${f.base}/supported`)).json()) as Record<string, unknown>
    attestation = supported.attestation as typeof attestation
  })
  after(() => f?.stop())
  const caip2 = () => `eip155:${f.chain.chainId}`
  const get = async (path: string) => (await (await fetch(`${f.base}${path}`)).json()) as Record<string, unknown>

  it('/supported publishes the attestation key account and the retired ones, apart from the gas signers', async () => {
    expect(attestation).to.deep.equal({
      current: privateKeyToAccount(TEST_ATTESTATION_KEY).address.toLowerCase(),
      retired: [retired],
    })
    const supported = await get('/supported')
    expect(JSON.stringify(supported.signers)).not.to.include(attestation.current)
  })

  it("a settle's receipt names the payment and verifies with viem against /supported's address; any change fails", async () => {
    const body = await f.payment()
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true })
    const receipt = settled.body.receipt as Receipt
    const { from, to, value, nonce } = body.paymentPayload.payload.authorization
    expect(receipt.domain).to.deep.equal({ name: 'x402 facilitator receipt', version: '1', chainId: f.chain.chainId })
    expect(receipt.primaryType).to.equal('SettlementReceipt')
    const block = (await anvilRpc(f.chain.rpcUrl, 'eth_getBlockByNumber', [
      `0x${Number(settled.body.blockNumber).toString(16)}`,
      false,
    ])) as { hash: string }
    expect(receipt.message).to.deep.include({
      network: caip2(),
      asset: f.asset,
      payer: from,
      payee: to,
      value,
      maxAmount: value,
      nonce,
      scheme: 'exact',
      transferMethod: 'eip3009',
      transactionHash: settled.body.txHash,
      blockNumber: String(settled.body.blockNumber),
      blockHash: block.hash,
      state: 'confirmed',
    })
    expect(await verifies(receipt, attestation.current)).to.equal(true)
    for (const [field, altered] of alterations(receipt))
      expect(await verifies(altered, attestation.current), field).to.equal(false)
    const otherChain = { ...receipt, domain: { ...receipt.domain, chainId: 1 } }
    expect(await verifies(otherChain, attestation.current)).to.equal(false)
    const sig = receipt.signature
    const flipped = `${sig.slice(0, 12)}${sig[12] === '0' ? '1' : '0'}${sig.slice(13)}` as Hex
    expect(await verifies({ ...receipt, signature: flipped }, attestation.current)).to.equal(false)
    expect(await verifies(receipt, retired)).to.equal(false)
  })

  it('the lookup of a final row carries a `final` receipt (by hash and by payer + nonce alike)', async () => {
    const body = await f.payment({ payer: 1 })
    const settled = await f.post('settle', body)
    const { from, nonce } = body.paymentPayload.payload.authorization
    // A new head for the finality watcher to judge the row by, rather than whatever block the machine mines next.
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const found = await waitFor('the settlement final', async () => {
      const view = await get(`/settlements/${settled.body.txHash as string}`)
      return view.state === 'final' ? view : undefined
    })
    const receipt = found.receipt as Receipt
    expect(receipt.message).to.include({ state: 'final', transactionHash: settled.body.txHash, payer: from })
    expect(await verifies(receipt, attestation.current)).to.equal(true)
    expect((await get(`/settlements?payer=${from}&nonce=${nonce}`)).receipt).to.deep.equal(receipt)
  })

  it('x402 v2 through the official HTTPFacilitatorClient: the answer parses and keeps the receipt under extensions', async () => {
    const accepted = {
      scheme: 'exact',
      network: caip2() as `${string}:${string}`,
      amount: '1000000',
      asset: f.chain.tokenAddress,
      payTo: PAYEE,
      maxTimeoutSeconds: 60,
      extra: { name: f.domain.name, version: f.domain.version },
    }
    const client = new x402Client()
      .register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(f.chain.payers[2]!.privateKey))))
      .setSpendControls({ allowedAssets: [{ network: accepted.network, asset: f.chain.tokenAddress }] })
    const payload = await client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://api.example/paid' },
      accepts: [accepted],
    })
    const settled = await new HTTPFacilitatorClient({ url: f.base }).settle(payload, accepted)
    expect(settled).to.include({ success: true, network: caip2() })
    const receipt = settled.extensions?.['facilitator-receipt'] as Receipt
    expect(receipt.message).to.include({ transactionHash: settled.transaction, payer: f.chain.payers[2]!.address })
    expect(await verifies(receipt, attestation.current)).to.equal(true)
  })
})
