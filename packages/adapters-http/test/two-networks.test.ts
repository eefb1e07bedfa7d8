import { explainMechanismFailure } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { isSvmRequest, type FamilyRequest, type ServedNetwork, type VerifyOutcome } from '@x402-facilitator/domain'
import { pino } from 'pino'
import { makeHttpApp } from '../src/http-app.js'
import type { AuthorizationLookup } from '../src/http-deps.js'
import { x402V2Dialect } from '../src/dialects/x402-v2-dialect.js'
import { networkTokensOf } from '../src/served-networks.js'
import { PAYER, postJson, specBody, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { EURC_BASE, settlementOn, SIGNER_A, twoNetworks, USDC_BASE, USDT_AMOY } from './support/two-networks.js'

const NONCE = `0x${'07'.repeat(32)}` as const

describe('HTTP: two networks, two tokens on the first', () => {
  let app: TestApp
  let verified: FamilyRequest[] = []
  let verifyNext: VerifyOutcome
  let lookups: AuthorizationLookup[] = []
  const settledOn = [
    settlementOn('base-sepolia', EURC_BASE, PAYER, NONCE),
    settlementOn('polygon-amoy', USDT_AMOY, PAYER, NONCE),
  ]
  before(async () => {
    app = await startTestApp({
      networks: twoNetworks,
      facilitator: SIGNER_A,
      verifyPayment: (request) => {
        verified.push(request)
        return TE.right(verifyNext)
      },
      settlePayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not under test' }),
      lookUpSettlement: () => TE.right(O.none),
      lookUpSettlementsByAuthorization: (query) => {
        lookups.push(query)
        return TE.right(settledOn.filter((s) => query.network === undefined || s.network === query.network))
      },
    })
  })
  after(() => app.close())
  beforeEach(() => {
    verified = []
    lookups = []
  })

  it('the x402 v2 dialect maps each CAIP-2 id to its spec name; one not served passes unchanged', () => {
    const dialect = x402V2Dialect({ networks: twoNetworks, addressChecksum: (lower) => lower })
    const networksOf = (caip2: string) => {
      const body = v2Body()
      body.paymentPayload.accepted.network = caip2
      body.paymentRequirements.network = caip2
      const decoded = dialect.decode(body)
      if (E.isLeft(decoded)) throw new Error(decoded.left.message)
      const { request } = decoded.right
      if (isSvmRequest(request)) throw new Error('an EVM body decoded as an SVM one')
      return [request.payload.network, request.requirements.network]
    }
    expect(networksOf('eip155:84532')).to.deep.equal(['base-sepolia', 'base-sepolia'])
    expect(networksOf('eip155:80002')).to.deep.equal(['polygon-amoy', 'polygon-amoy'])
    expect(networksOf('eip155:1')).to.deep.equal(['eip155:1', 'eip155:1'])
  })

  const v2On = (caip2: string, asset: string) => {
    const body = v2Body()
    body.paymentPayload.accepted = { ...body.paymentPayload.accepted, network: caip2, asset }
    body.paymentRequirements = { ...body.paymentRequirements, network: caip2, asset }
    return body
  }

  it("a refusal's amounts are worded in the token the request names, else its network's first, else the first", async () => {
    verifyNext = { _tag: 'Invalid', payer: PAYER, failure: { _tag: 'ValueBelowAmount', value: 150n, amount: 250n } }
    const messageFor = async (caip2: string, asset: string) => {
      const res = await postJson(`${app.base}/api/facilitator/verify`, v2On(caip2, asset))
      expect(res.status).to.equal(200)
      return ((await res.json()) as { invalidMessage: string }).invalidMessage
    }
    const below = (value: string, amount: string, symbol: string) =>
      `authorized value ${value} ${symbol} is below the required ${amount} ${symbol}`
    expect(await messageFor('eip155:84532', EURC_BASE)).to.equal(below('1.5', '2.5', 'EURC'))
    expect(await messageFor('eip155:84532', USDC_BASE)).to.equal(below('0.00015', '0.00025', 'USDC'))
    expect(await messageFor('eip155:80002', USDT_AMOY)).to.equal(below('0.00015', '0.00025', 'USDT'))
    expect(await messageFor('eip155:80002', `0x${'99'.repeat(20)}`)).to.equal(below('0.00015', '0.00025', 'USDT'))
    expect(await messageFor('eip155:1', EURC_BASE)).to.equal(below('0.00015', '0.00025', 'USDC'))
    // The spec dialect words them alike.
    const spec = specBody()
    spec.paymentRequirements = { ...spec.paymentRequirements, network: 'base-sepolia', asset: EURC_BASE }
    const res = await postJson(`${app.base}/api/facilitator/verify`, spec)
    expect(await res.json()).to.include({ invalidReason: below('1.5', '2.5', 'EURC') })
    expect(verified.map((r) => r.requirements.network)).to.deep.equal([
      'base-sepolia',
      'base-sepolia',
      'polygon-amoy',
      'polygon-amoy',
      'eip155:1',
      'base-sepolia',
    ])
  })

  it('a token its network does not serve is refused naming every token of that network, and how each is paid', async () => {
    const unserved = `0x${'99'.repeat(20)}` as const
    verifyNext = {
      _tag: 'Invalid',
      payer: PAYER,
      failure: { _tag: 'WrongAsset', asset: unserved, expected: USDC_BASE },
    }
    const res = await postJson(`${app.base}/api/facilitator/verify`, v2On('eip155:84532', unserved))
    expect(await res.json()).to.include({
      invalidReason: 'invalid_payment_requirements',
      invalidMessage: `unsupported asset ${unserved}: on this network this facilitator settles USDC at ${USDC_BASE}, EURC at ${EURC_BASE}`,
    })
    const permit2Only = { ...twoNetworks[0]!.tokens[1]!, transferMethods: ['permit2'] as const }
    const withMethods = [
      {
        ...twoNetworks[0]!,
        tokens: [{ ...twoNetworks[0]!.tokens[0]!, transferMethods: ['eip3009', 'permit2'] as const }, permit2Only],
      },
    ]
    expect(networkTokensOf(withMethods, 'eip155:84532')).to.deep.equal([
      { address: USDC_BASE, symbol: 'USDC', how: 'eip3009 or permit2' },
      { address: EURC_BASE, symbol: 'EURC', how: 'permit2' },
    ])
    expect(networkTokensOf(withMethods, 'eip155:1')).to.equal(undefined)
  })

  it('an x402 v2 answer names the network the requirements name (the first one when it is not served)', async () => {
    verifyNext = { _tag: 'Invalid', payer: PAYER, failure: { _tag: 'AuthorizationUsed' } }
    const settleNetwork = async (caip2: string) => {
      const res = await postJson(`${app.base}/api/facilitator/settle`, v2On(caip2, USDT_AMOY))
      return ((await res.json()) as { network: string }).network
    }
    expect(await settleNetwork('eip155:80002')).to.equal('eip155:80002')
    expect(await settleNetwork('eip155:84532')).to.equal('eip155:84532')
    expect(await settleNetwork('eip155:1')).to.equal('eip155:84532')
  })

  it('a lookup by payer and nonce found on two networks: 409 ambiguous_settlement with both matches', async () => {
    const res = await fetch(`${app.base}/api/facilitator/settlements?payer=${PAYER}&nonce=${NONCE}`)
    expect(res.status).to.equal(409)
    const body = (await res.json()) as { errorCode: string; error: string; matches: Array<Record<string, unknown>> }
    expect(body.errorCode).to.equal('ambiguous_settlement')
    expect(body.error).to.equal(
      `this payer and nonce match settlements on several networks: base-sepolia (${EURC_BASE}), ` +
        `polygon-amoy (${USDT_AMOY}); name one with network`,
    )
    expect(body.matches.map((m) => [m.network, m.asset, m.state])).to.deep.equal([
      ['base-sepolia', EURC_BASE, 'confirmed'],
      ['polygon-amoy', USDT_AMOY, 'confirmed'],
    ])
    expect(lookups).to.deep.equal([{ payer: PAYER, nonce: NONCE }])
  })

  it('a lookup naming the network (spec name or CAIP-2): that one settlement', async () => {
    for (const network of ['polygon-amoy', 'eip155:80002']) {
      const res = await fetch(
        `${app.base}/api/facilitator/settlements?payer=${PAYER}&nonce=${NONCE}&network=${network}`,
      )
      expect(res.status).to.equal(200)
      expect(await res.json()).to.include({ network: 'polygon-amoy', asset: USDT_AMOY, state: 'confirmed' })
    }
    expect(lookups).to.deep.equal([
      { payer: PAYER, nonce: NONCE, network: 'polygon-amoy' },
      { payer: PAYER, nonce: NONCE, network: 'polygon-amoy' },
    ])
    const unserved = await fetch(`${app.base}/api/facilitator/settlements?payer=${PAYER}&nonce=${NONCE}&network=base`)
    expect(unserved.status).to.equal(400)
    expect(await unserved.json()).to.include({
      errorCode: 'invalid_query',
      error:
        'network: expected a network this facilitator serves: base-sepolia or eip155:84532 or polygon-amoy or ' +
        'eip155:80002',
    })
  })
})

describe('HTTP: what it is given to serve is checked when the app is made', () => {
  const make = (networks: ReadonlyArray<ServedNetwork>) => () =>
    makeHttpApp({
      networks,
      facilitator: SIGNER_A,
      explainMechanismRefusal: explainMechanismFailure,
      addressChecksum: (lower) => lower,
      logger: pino({ level: 'silent' }),
      verifyPayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not under test' }),
      settlePayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not under test' }),
      lookUpSettlement: () => TE.right(O.none),
      lookUpSettlementsByAuthorization: () => TE.right([]),
    })
  const [base, amoy] = twoNetworks as [ServedNetwork, ServedNetwork]

  it('no network, a network without a token, or one named twice: refused, naming it', () => {
    expect(make([])).to.throw('the HTTP app needs at least one network with at least one token')
    expect(make([base, { ...amoy, tokens: [] }])).to.throw(
      'network polygon-amoy (eip155:80002) is served with no token',
    )
    expect(make([base, { ...amoy, caip2: base.caip2 }])).to.throw('network eip155:84532 is served twice')
    expect(make([base, { ...amoy, name: base.name }])).to.throw('network base-sepolia is served twice')
    expect(make(twoNetworks)).not.to.throw()
  })
})
