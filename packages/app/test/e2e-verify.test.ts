import { expect } from 'chai'
import { startTestFacilitator, type PaymentBody, type TestFacilitator } from './support/test-facilitator.js'

type Edit = (b: PaymentBody) => void
const auth = (b: PaymentBody) => b.paymentPayload.payload.authorization as Record<string, unknown>

describe('end to end: verify, one test per reason code, over real HTTP, anvil and Postgres', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator()
  })
  after(() => f?.stop())

  const verify = async (edit: Edit = () => {}, payment?: Parameters<TestFacilitator['payment']>[0]) => {
    const body = await f.payment(payment)
    edit(body)
    return f.post('verify', body)
  }

  it('a valid payment → 200 {valid:true, payer}', async () => {
    const res = await verify()
    expect(res.status).to.equal(200)
    expect(res.body).to.deep.equal({ valid: true, payer: f.chain.payers[0]!.address })
  })

  const cases: ReadonlyArray<[string, Edit, string]> = [
    ['version 1', (b) => (b.paymentPayload.x402Version = '1.0'), 'invalid_x402_version'],
    ['scheme upto', (b) => (b.paymentPayload.scheme = 'upto'), 'unsupported_scheme'],
    ['another network', (b) => (b.paymentRequirements.network = 'eip155:1'), 'invalid_network'],
    ['another asset', (b) => (b.paymentRequirements.asset = `0x${'12'.repeat(20)}`), 'invalid_payment_requirements'],
    [
      'another recipient',
      (b) => (b.paymentRequirements.payTo = `0x${'34'.repeat(20)}`),
      'invalid_exact_evm_payload_recipient_mismatch',
    ],
    [
      'value below amount',
      (b) => (b.paymentRequirements.amount = '1000001'),
      'invalid_exact_evm_payload_authorization_value',
    ],
    [
      'not yet valid',
      (b) => (auth(b).validAfter = Math.floor(new Date().getTime() / 1000) + 3600),
      'invalid_exact_evm_payload_authorization_valid_after',
    ],
    [
      'expiring within the margin',
      (b) => (auth(b).validBefore = Math.floor(new Date().getTime() / 1000) + 2),
      'invalid_exact_evm_payload_authorization_valid_before',
    ],
    [
      'tampered value (signature no longer matches)',
      (b) => {
        auth(b).value = '2000000'
      },
      'invalid_exact_evm_payload_signature',
    ],
    [
      'high-s signature',
      (b) => {
        const sig = b.paymentPayload.payload.signature
        const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
        const s = BigInt(`0x${sig.slice(66, 130)}`)
        const v = Number.parseInt(sig.slice(130), 16)
        b.paymentPayload.payload.signature =
          `${sig.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as `0x${string}`
      },
      'invalid_exact_evm_payload_signature',
    ],
    // A smart wallet's signature (longer than 65 bytes) from a payer without code: a refusal the official client reads,
    // not a 400.
    [
      'a 200-byte signature from a payer without code',
      (b) => (b.paymentPayload.payload.signature = `0x${'ab'.repeat(200)}`),
      'invalid_exact_evm_payload_signature',
    ],
  ]
  for (const [label, edit, reasonCode] of cases) {
    it(`${label} → ${reasonCode}`, async () => {
      const res = await verify(edit)
      expect(res.status).to.equal(200)
      expect(res.body).to.include({ valid: false, reasonCode, payer: f.chain.payers[0]!.address })
      expect(res.body.invalidReason).to.be.a('string').and.not.equal('')
    })
  }

  it('signed by another key → invalid_exact_evm_payload_signature', async () => {
    const other = await f.payment({ payer: 1 })
    const body = await f.payment({ payer: 0 })
    body.paymentPayload.payload.signature = other.paymentPayload.payload.signature
    const res = await f.post('verify', body)
    expect(res.body).to.include({ valid: false, reasonCode: 'invalid_exact_evm_payload_signature' })
  })

  it('insufficient balance → insufficient_funds, naming the token and both amounts', async () => {
    const balance = await f.balanceOf(f.chain.payers[2]!.address)
    const res = await verify(() => {}, { payer: 2, value: balance + 500_000n })
    expect(res.body).to.deep.equal({
      valid: false,
      reasonCode: 'insufficient_funds',
      invalidReason:
        `insufficient balance of ${f.chain.tokenSymbol}: ${Number(balance) / 1e6}.0 available, ` +
        `${Number(balance + 500_000n) / 1e6} required`,
      payer: f.chain.payers[2]!.address,
    })
  })

  it('a nonce already used on-chain → authorization_already_used', async () => {
    const body = await f.payment({ payer: 1 })
    expect((await f.post('settle', body)).body).to.include({ success: true })
    const res = await f.post('verify', body)
    expect(res.body).to.include({ valid: false, reasonCode: 'authorization_already_used' })
  })

  it('mixed-case addresses with a wrong EIP-55 checksum → 400 naming the field', async () => {
    const res = await verify((b) => {
      const from = auth(b).from as string
      auth(b).from = `0x${from.slice(2).replace(/[a-f]/, (c) => c.toUpperCase())}`
    })
    expect(res.status).to.equal(400)
    expect(res.body).to.deep.equal({
      valid: false,
      reasonCode: 'invalid_payload',
      invalidReason: 'paymentPayload.payload.authorization.from: mixed-case address fails its EIP-55 checksum',
      requestId: res.headers.get('x-request-id'),
    })
  })

  it('supported: the spec body and a 60 s cache header', async () => {
    const response = await fetch(`${f.base}/supported`)
    expect(response.status).to.equal(200)
    expect(response.headers.get('cache-control')).to.equal('public, max-age=60')
    const body = (await response.json()) as Record<string, unknown>
    expect(body).to.deep.include({
      x402Version: '2.0',
      facilitator: f.chain.facilitator.address,
      schemes: ['exact'],
      networks: [f.network],
      assets: [{ network: f.network, asset: f.chain.tokenSymbol, address: f.chain.tokenAddress }],
    })
    // x402 v2 fields ride along; the spec's are untouched.
    expect(Object.keys(body).sort()).to.deep.equal([
      'assets',
      'attestation',
      'extensions',
      'facilitator',
      'kinds',
      'networks',
      'schemes',
      'signers',
      'x402Version',
    ])
  })
})
