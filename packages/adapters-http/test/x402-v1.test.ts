import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  isSvmRequest,
  type FamilyRequest,
  type ServedNetwork,
  type SettleOutcome,
  type VerifyOutcome,
} from '@x402-facilitator/domain'
import { x402V1Dialect } from '../src/dialects/x402-v1-dialect.js'
import { PAYER, postJson, specBody, TX_HASH } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { SIGNER_A, twoNetworks } from './support/two-networks.js'
import { settled, valid } from './support/answer-rows.js'
import { v1Body } from './support/v1-bodies.js'

/** The two networks x402 v1 names (base-sepolia, polygon-amoy), and a local chain it cannot name. */
const networks: ReadonlyArray<ServedNetwork> = [
  ...twoNetworks,
  { ...twoNetworks[0]!, name: 'local', caip2: 'eip155:31337' },
]

describe('HTTP: x402 v1 (the legacy x402 1.x packages)', () => {
  let app: TestApp
  let requests: FamilyRequest[] = []
  let verifyNext: VerifyOutcome
  let settleNext: SettleOutcome
  before(async () => {
    app = await startTestApp({
      networks,
      facilitator: SIGNER_A,
      verifyPayment: (request) => {
        requests.push(request)
        return TE.right(verifyNext)
      },
      settlePayment: (request) => {
        requests.push(request)
        return TE.right(settleNext)
      },
      lookUpSettlement: () => TE.right(O.none),
    })
  })
  after(() => app.close())
  beforeEach(() => {
    requests = []
  })

  const decode = (body: unknown) => x402V1Dialect({ networks, addressChecksum: (lower) => lower }).decode(body)

  it('reads a v1 body onto the payment the core judges: its v1 network by chain id, maxAmountRequired as amount', () => {
    const decoded = decode(v1Body('polygon-amoy'))
    if (E.isLeft(decoded)) throw new Error(decoded.left.message)
    const { request, requirementsRecord } = decoded.right
    if (isSvmRequest(request)) throw new Error('a v1 body decoded as an SVM one')
    expect(request.payload.network).to.equal('polygon-amoy')
    expect(request.requirements).to.deep.include({ network: 'polygon-amoy', amount: 1_000_000n, scheme: 'exact' })
    expect('authorization' in request.payload && request.payload.authorization.nonce).to.equal(`0x${'07'.repeat(32)}`)
    // The journal keeps the requirements as received: v1's own fields.
    expect(requirementsRecord).to.deep.include({ maxAmountRequired: '1000000', resource: 'http://shop.test/weather' })
  })

  it('refuses, naming its field and what v1 may pay on, a v1 name not served and a name v1 does not have', () => {
    const refusal = (body: unknown) => {
      const decoded = decode(body)
      if (E.isRight(decoded)) throw new Error('decoded')
      return decoded.left
    }
    expect(refusal(v1Body('base'))).to.deep.include({
      reasonCode: 'invalid_network',
      field: 'paymentPayload.network',
      message:
        'paymentPayload.network: "base" is not served here; over x402 v1 this facilitator serves ' +
        '"base-sepolia", "polygon-amoy"',
    })
    // The local chain is served, but v1 has no name for it: its spec name is not one either.
    for (const name of ['local', 'eip155:31337']) {
      expect(refusal(v1Body(name)).message).to.equal(
        `paymentPayload.network: "${name}" is not an x402 v1 network name; over x402 v1 this facilitator serves ` +
          '"base-sepolia", "polygon-amoy"',
      )
    }
    const mixed = v1Body()
    mixed.paymentRequirements.network = 'base'
    expect(refusal(mixed)).to.deep.include({ field: 'paymentRequirements.network', reasonCode: 'invalid_network' })
    const noAmount: Record<string, unknown> = { ...v1Body(), paymentRequirements: { ...v1Body().paymentRequirements } }
    delete (noAmount.paymentRequirements as Record<string, unknown>).maxAmountRequired
    expect(refusal(noAmount)).to.deep.include({
      reasonCode: 'invalid_payment_requirements',
      message: 'paymentRequirements.maxAmountRequired: is required',
    })
    const permit2 = v1Body()
    ;(permit2.paymentPayload.payload as Record<string, unknown>).authorization = undefined
    expect(refusal(permit2).field).to.equal('paymentPayload.payload.authorization')
  })

  it("answers verify in v1's shape, over HTTP, 400 for a network v1 cannot name", async () => {
    verifyNext = valid
    const passed = await postJson(`${app.base}/api/facilitator/verify`, v1Body())
    expect(passed.status).to.equal(200)
    expect(await passed.json()).to.include({ isValid: true, payer: PAYER })
    expect(requests.map((r) => r.requirements.network)).to.deep.equal(['base-sepolia'])

    verifyNext = { _tag: 'Invalid', payer: PAYER, failure: { _tag: 'ValueBelowAmount', value: 1n, amount: 2n } }
    const invalid = await postJson(`${app.base}/api/facilitator/verify`, v1Body())
    expect(invalid.status).to.equal(200)
    expect(await invalid.json()).to.include({
      isValid: false,
      invalidReason: 'invalid_exact_evm_payload_authorization_value',
      payer: PAYER,
    })

    const unnamed = await postJson(`${app.base}/api/facilitator/verify`, v1Body('local'))
    expect(unnamed.status).to.equal(400)
    expect(await unnamed.json()).to.include({ isValid: false, invalidReason: 'invalid_network' })
    expect(requests).to.have.length(2)
  })

  it("answers settle in v1's shape: the transaction, the v1 network name and the payer", async () => {
    settleNext = settled(false)
    const res = await postJson(`${app.base}/api/facilitator/settle`, v1Body('polygon-amoy', `0x${'03'.repeat(20)}`))
    expect(res.status).to.equal(200)
    expect(await res.json()).to.include({ success: true, transaction: TX_HASH, network: 'polygon-amoy', payer: PAYER })

    settleNext = { _tag: 'Refused', payer: PAYER, refusal: { _tag: 'ValueBelowAmount', value: 1n, amount: 2n } }
    const refused = await postJson(`${app.base}/api/facilitator/settle`, v1Body())
    expect(await refused.json()).to.include({
      success: false,
      errorReason: 'invalid_exact_evm_payload_authorization_value',
      transaction: '',
      network: 'base-sepolia',
    })
  })

  it('a spec body whose version is "1" stays in the spec dialect (rule 1 refuses it there)', async () => {
    verifyNext = valid
    const body = specBody()
    body.paymentPayload.x402Version = '1'
    const res = await postJson(`${app.base}/api/facilitator/verify`, body)
    expect(await res.json()).to.include({ valid: true })
    const [request] = requests
    if (request === undefined || isSvmRequest(request)) throw new Error('no EVM request reached verify')
    expect(request.payload.x402Version).to.equal(1)
  })

  it('/supported lists a v1 exact kind for each network v1 names, none for one it cannot', async () => {
    const res = await fetch(`${app.base}/api/facilitator/supported`)
    const { kinds } = (await res.json()) as { kinds: Array<{ x402Version: number; network: string }> }
    expect(kinds.filter((kind) => kind.x402Version === 1)).to.deep.equal([
      { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
      { x402Version: 1, scheme: 'exact', network: 'polygon-amoy' },
    ])
  })
})
